import CoreBluetooth

/// The dictionary is a stored property, emptied and filled by subscript in one method, then
/// advertised by another.
final class SensorAdvertiser {
    private let peripheralManager = CBPeripheralManager(delegate: nil, queue: nil)
    private var advertisementData: [String: Any]!
    private let deviceName = "Sensor 12"
    var includeTxPower = false

    func prepare() {
        advertisementData = [:]
        advertisementData[CBAdvertisementDataServiceUUIDsKey] = [CBUUID(string: "3A1F6B20-8E4C-4D0F-9B57-2C6E1D8A7F90")]
        advertisementData.updateValue(deviceName, forKey: CBAdvertisementDataLocalNameKey)
        if includeTxPower {
            advertisementData[CBAdvertisementDataTxPowerLevelKey] = -8
        }
        begin()
    }

    private func begin() {
        peripheralManager.startAdvertising(advertisementData)
    }
}
