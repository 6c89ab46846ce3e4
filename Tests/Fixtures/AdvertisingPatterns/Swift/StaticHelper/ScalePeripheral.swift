import CoreBluetooth

final class ScalePeripheral: NSObject, CBPeripheralManagerDelegate {
    private lazy var manager = CBPeripheralManager(delegate: self, queue: nil)

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        peripheral.startAdvertising(AdvertisingData.advertisementData(name: AdvertisingData.advertisingName))
    }
}
