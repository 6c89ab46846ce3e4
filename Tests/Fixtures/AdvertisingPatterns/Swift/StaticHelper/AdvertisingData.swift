import CoreBluetooth

enum AdvertisingData {
    static let scaleService = CBUUID(string: "181D")
    static var isBeta = false

    static var advertisingName: String {
        if isBeta {
            return "Scale beta"
        }
        return "Scale"
    }

    static func advertisementData(name: String) -> [String: Any] {
        return [CBAdvertisementDataLocalNameKey: name, CBAdvertisementDataServiceUUIDsKey: [scaleService]]
    }
}
