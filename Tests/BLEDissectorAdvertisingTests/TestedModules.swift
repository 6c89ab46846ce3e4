import BLEDissectorAdvertising
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore

/// The modules these tests decode with: advertising data, from the HCI reports that carry it.
enum Dissect: DissectorStack {
    static var modules: [any DissectorModule.Type] { [HCIModule.self, AdvertisingModule.self] }
}
