import CoreBluetooth

final class ChatAdvertiser {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)

    func advertise(service: CBMutableService) {
        manager.add(service)
        manager.startAdvertising([
            CBAdvertisementDataServiceUUIDsKey: [service.uuid],
            CBAdvertisementDataLocalNameKey: "Chat",
        ])
    }
}
