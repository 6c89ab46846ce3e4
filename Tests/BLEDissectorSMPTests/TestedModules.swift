import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorSMP
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: SMP, over HCI and L2CAP.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] { [HCIModule.self, L2CAPModule.self, SMPModule.self] }
}
