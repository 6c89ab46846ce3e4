import ArgumentParser
import BLEAdvBudgetCommand

AdvBudgetCommand.main()
