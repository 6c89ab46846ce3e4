/// The advertisement data keys of CoreBluetooth: the public constant's name and the raw string it
/// stands for, which apps sometimes write instead (`"kCBAdvDataLocalName"`). Both source readers
/// recognise keys from this one table. Only the first two are advertised by
/// `CBPeripheralManager.startAdvertising` (§2.1, §2.2).
public enum AdvertisementKeys {
    public static let localName = "CBAdvertisementDataLocalNameKey"
    public static let serviceUUIDs = "CBAdvertisementDataServiceUUIDsKey"

    public static let known: [(name: String, raw: String)] = [
        (localName, "kCBAdvDataLocalName"),
        (serviceUUIDs, "kCBAdvDataServiceUUIDs"),
        ("CBAdvertisementDataManufacturerDataKey", "kCBAdvDataManufacturerData"),
        ("CBAdvertisementDataServiceDataKey", "kCBAdvDataServiceData"),
        ("CBAdvertisementDataOverflowServiceUUIDsKey", "kCBAdvDataHashedServiceUUIDs"),
        ("CBAdvertisementDataTxPowerLevelKey", "kCBAdvDataTxPowerLevel"),
        ("CBAdvertisementDataIsConnectable", "kCBAdvDataIsConnectable"),
        ("CBAdvertisementDataSolicitedServiceUUIDsKey", "kCBAdvDataSolicitedServiceUUIDs"),
    ]

    /// CoreBluetooth constants apps put in the dictionary that are not advertisement data keys
    /// (the state-restoration keys): reported as other keys, which iOS drops.
    public static let otherConstants: Set<String> = [
        "CBPeripheralManagerRestoredStateAdvertisementDataKey", "CBPeripheralManagerRestoredStateServicesKey",
    ]

    /// The key a CoreBluetooth constant's name stands for (`CBAdvertisementDataLocalNameKey`, or a
    /// state-restoration key as another key); nil when the name is not one of them.
    public static func key(constant name: String) -> AdvertisementKey? {
        switch name {
        case localName: .localName
        case serviceUUIDs: .serviceUUIDs
        case _ where known.contains(where: { $0.name == name }) || otherConstants.contains(name): .other(name)
        default: nil
        }
    }

    /// The key a string literal stands for: a raw key (`"kCBAdvDataLocalName"`) is that key; any
    /// other string is another key of that name.
    public static func key(raw text: String) -> AdvertisementKey {
        known.first { $0.raw == text }.flatMap { key(constant: $0.name) } ?? .other(text)
    }
}

/// What a dictionary key of `startAdvertising` is.
public enum AdvertisementKey: Hashable, Sendable {
    case localName
    case serviceUUIDs
    /// Another key: the CoreBluetooth constant's name, or a literal key's string.
    case other(String)
}
