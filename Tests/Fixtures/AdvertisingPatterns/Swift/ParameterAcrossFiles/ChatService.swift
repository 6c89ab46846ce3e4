import CoreBluetooth

enum ChatService {
    static let serviceUUID = CBUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let service = CBMutableService(type: serviceUUID, primary: true)
}
