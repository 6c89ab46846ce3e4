import BLEDissectorAndroidVendor
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: HCI, whose event table carries the vendor events.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] { [HCIModule.self, AndroidVendorModule.self] }
}
