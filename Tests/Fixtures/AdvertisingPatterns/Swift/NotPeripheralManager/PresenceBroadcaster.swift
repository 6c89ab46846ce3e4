import CoreBluetooth
import CoreLocation
import NearbyKit

/// A subclass of the sources: still a CBPeripheralManager.
class LoggingPeripheralManager: CBPeripheralManager {}

/// What tests inject; CBPeripheralManager conforms.
protocol BeaconTransmitting: AnyObject {
    func startAdvertising(_ advertisementData: [String: Any]?)
}

extension CBPeripheralManager: BeaconTransmitting {}

/// Receivers of `startAdvertising(_:)` of several types: only CoreBluetooth's are reported.
final class PresenceBroadcaster: NSObject, CBPeripheralManagerDelegate {
    private let locationManager = CLLocationManager()
    private var nearby: NearbyAdvertiser!
    private lazy var peripheralManager = LoggingPeripheralManager(delegate: self, queue: nil)
    private let transmitter: BeaconTransmitting

    init(transmitter: BeaconTransmitting) {
        self.transmitter = transmitter
    }

    func broadcast() {
        locationManager.startAdvertising([CBAdvertisementDataLocalNameKey: "Location"])
        nearby.startAdvertising(["endpoint": "Presence"])
        peripheralManager.startAdvertising([CBAdvertisementDataLocalNameKey: "Presence"])
        transmitter.startAdvertising([CBAdvertisementDataLocalNameKey: "Injected"])
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "1820")]])
    }
}
