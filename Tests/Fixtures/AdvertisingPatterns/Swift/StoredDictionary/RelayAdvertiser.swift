import CoreBluetooth

/// A key is set in another method than the one that assigns the dictionary: the order is not
/// known, so the dictionary is not read.
final class RelayAdvertiser {
    private let manager = CBPeripheralManager(delegate: nil, queue: nil)
    private var payload: [String: Any] = [:]

    func configure() {
        payload = [CBAdvertisementDataLocalNameKey: "Relay"]
    }

    func addBatteryService() {
        payload[CBAdvertisementDataServiceUUIDsKey] = [CBUUID(string: "180F")]
    }

    func start() {
        manager.startAdvertising(payload)
    }
}
