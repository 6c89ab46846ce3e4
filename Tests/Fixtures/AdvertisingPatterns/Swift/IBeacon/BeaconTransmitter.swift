import CoreBluetooth
import CoreLocation

enum BeaconIdentity {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let major: CLBeaconMajorValue = 100
}

final class BeaconTransmitter {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)
    let region = CLBeaconRegion(uuid: BeaconIdentity.uuid, major: BeaconIdentity.major, minor: 7, identifier: "store")

    func transmit() {
        let data = region.peripheralData(withMeasuredPower: nil) as? [String: Any]
        manager.startAdvertising(data)
    }

    func transmitCalibrated() {
        let constraint = CLBeaconIdentityConstraint(uuid: BeaconIdentity.uuid, major: 1, minor: 2)
        let calibrated = CLBeaconRegion(beaconIdentityConstraint: constraint, identifier: "door")
        manager.startAdvertising(calibrated.peripheralData(withMeasuredPower: -59) as? [String: Any])
    }
}
