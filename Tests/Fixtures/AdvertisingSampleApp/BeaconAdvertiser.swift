import CoreBluetooth
import CoreLocation

/// Turns the phone into an iBeacon for the thermometer's range test.
final class BeaconAdvertiser: NSObject, CBPeripheralManagerDelegate {
    private lazy var manager = CBPeripheralManager(delegate: self, queue: nil)
    private let proximityUUID = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")

    func start() {
        _ = manager
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn, let proximityUUID else { return }
        let region = CLBeaconRegion(uuid: proximityUUID, major: 1, minor: 7, identifier: "com.example.thermo")
        let beaconData = region.peripheralData(withMeasuredPower: nil) as? [String: Any]
        peripheral.startAdvertising(beaconData)
    }
}
