import CoreBluetooth

/// The restore key, which is not an advertising key, given to startAdvertising.
final class RestoringPeripheral {
    private let manager = CBPeripheralManager(delegate: nil, queue: nil)

    func resume(saved: Bool) {
        manager.startAdvertising([
            CBAdvertisementDataLocalNameKey: "Restorable",
            CBPeripheralManagerRestoredStateAdvertisementDataKey: saved,
        ])
    }
}
