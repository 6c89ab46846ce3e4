import BLEInspectCLI
import ThermoProbeDissector

// bleinspect's whole command line (read, live, gatt, follow, fields, …) with the built-in
// dissector modules plus this package's.
BLEInspectTool.main(modules: [ThermoProbeModule.self])
