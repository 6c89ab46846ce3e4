import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: L2CAP, over HCI ACL data.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] { [HCIModule.self, L2CAPModule.self] }
}
