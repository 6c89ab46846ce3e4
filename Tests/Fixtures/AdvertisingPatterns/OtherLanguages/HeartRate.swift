import CoreBluetooth

/// The iOS half of an app whose Android half is Kotlin: a short name and one 16-bit UUID fit.
enum HeartRateAdvert {
    static func start(_ manager: CBPeripheralManager) {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: "HRM", CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
    }
}
