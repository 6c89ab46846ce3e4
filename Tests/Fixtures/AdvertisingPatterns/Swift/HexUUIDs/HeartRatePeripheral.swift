import CoreBluetooth

final class HeartRatePeripheral {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)

    func start() {
        manager.startAdvertising([
            CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "0x180D"), CBUUID(string: "0X180A"), CBUUID(string: "Heart")]
        ])
    }
}
