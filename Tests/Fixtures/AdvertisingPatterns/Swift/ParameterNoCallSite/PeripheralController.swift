import CoreBluetooth

// A controller from a CoreBluetooth walkthrough: the service is handed in, and nothing in the
// sources calls `advertise(service:)`.
final class PeripheralController: NSObject, CBPeripheralManagerDelegate {
    private var peripheralManager: CBPeripheralManager!

    func advertise(service: CBMutableService) {
        peripheralManager.add(service)
        peripheralManager.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [service.uuid], CBAdvertisementDataLocalNameKey: "com.example.corebluetooth"])
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {}
}
