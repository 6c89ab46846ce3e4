import CoreBluetooth

enum NameCodes {
    static let kiosk = 42
}

/// Local names that are not strings: iOS drops them without an error.
final class KioskAdvertiser {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)
    let displayName = "Kiosk"
    private var data: [String: Any]!

    func advertiseList() {
        manager.startAdvertising([
            CBAdvertisementDataLocalNameKey: [displayName],
            CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "1819")],
        ])
    }

    func advertiseCode() {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: NameCodes.kiosk])
    }

    func advertiseBytes() {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: displayName.data(using: .utf8) as Any])
    }

    func advertiseStringUUIDs() {
        manager.startAdvertising([CBAdvertisementDataServiceUUIDsKey: ["180A", "180F"]])
    }

    func prepareStored() {
        data = [:]
        data[CBAdvertisementDataLocalNameKey] = [displayName]
        advertiseStored()
    }

    func advertiseStored() {
        manager.startAdvertising(data)
    }
}
