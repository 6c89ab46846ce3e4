import BLEInspectCLI

BLEInspectTool.main()
