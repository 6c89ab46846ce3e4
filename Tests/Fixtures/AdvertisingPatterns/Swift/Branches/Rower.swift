import CoreBluetooth

final class Rower {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)
    var pm5Mode = false

    func startRowingService() {
        var name: String
        if pm5Mode {
            name = "PM5 430000001"
        } else {
            name = "Rower"
        }
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: name, CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "1826")]])
    }
}
