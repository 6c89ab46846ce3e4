import BLEDissectorATT
import BLEDissectorAdvertising
import BLEDissectorL2CAP
import BLEDissectorLinkLayer
import BLEDissectorSMP
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: the link layer, with the advertising data, L2CAP, ATT and SMP it carries.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] {
        [AdvertisingModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self, LinkLayerModule.self]
    }
}
