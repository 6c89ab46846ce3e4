import BLEDissectorATT
import BLEDissectorAdvertising
import BLEDissectorDevice
import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorLinkLayer
import BLEDissectorSMP
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: the device tracker, over every built-in module whose fields it reads.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] {
        [
            HCIModule.self, AdvertisingModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self, DeviceModule.self,
            LinkLayerModule.self,
        ]
    }
}
