import BLEDissectorATT
import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorSMP
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: ATT, over HCI and L2CAP, with SMP (the tshark comparisons read both).
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] {
        [HCIModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self]
    }
}
