import BLEDissectorATT
import BLEDissectorAdvertising
import BLEDissectorDevice
import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorLinkLayer
import BLEDissectorSMP
import BLEDissectorTestSupport
import BLEInspectCore

/// The built-in modules, which the tests compare with a registry that adds the example's.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] {
        [
            HCIModule.self, AdvertisingModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self, DeviceModule.self,
            LinkLayerModule.self,
        ]
    }
}
