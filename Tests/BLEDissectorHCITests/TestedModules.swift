import BLEDissectorAdvertising
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: HCI, with the advertising data its reports carry.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] { [HCIModule.self, AdvertisingModule.self] }
}
