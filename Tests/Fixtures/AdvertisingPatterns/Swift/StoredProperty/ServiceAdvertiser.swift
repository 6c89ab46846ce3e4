import CoreBluetooth

/// The service UUID is kept in an implicitly unwrapped `var`, set when the service is added.
final class ServiceAdvertiser: NSObject {
    private let peripheralManager = CBPeripheralManager(delegate: nil, queue: nil)
    private var serviceUUID: CBUUID!

    func addService() {
        serviceUUID = CBUUID(string: "7D2EA28A-F7BD-485A-BD9D-92AD6ECFE93E")
        advertise()
    }

    func advertise() {
        peripheralManager.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [serviceUUID]])
    }
}
