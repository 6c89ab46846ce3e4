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
}
