import CoreBluetooth
import CoreLocation

/// The region is an optional `var`, built just before advertising and cleared when stopping.
final class BeaconBroadcaster {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)
    var region: CLBeaconRegion?

    func broadcast() {
        let uuid = UUID(uuidString: "9B7F3C1E-52D4-4A8B-8F11-6C0D2E4A9B35")!
        region = CLBeaconRegion(uuid: uuid, major: 3, minor: 42, identifier: "lobby")
        manager.startAdvertising(region!.peripheralData(withMeasuredPower: nil) as? [String: Any])
    }

    func stop() {
        manager.stopAdvertising()
        region = nil
    }
}
