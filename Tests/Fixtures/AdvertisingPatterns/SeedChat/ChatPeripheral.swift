import CoreBluetooth

/// The pattern of a CoreBluetooth article's chat app: the service comes in as a parameter, and
/// nothing in these sources calls `advertise(service:)`, so its UUID is not known. Any UUID takes
/// at least 4 bytes, so the 25-byte name is cut whatever it is.
final class ChatPeripheral: NSObject, CBPeripheralManagerDelegate {
    private var peripheralManager: CBPeripheralManager!

    func advertise(service: CBMutableService) {
        peripheralManager.add(service)
        peripheralManager.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [service.uuid],
                                            CBAdvertisementDataLocalNameKey: "com.example.corebluetooth"])
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {}
}
