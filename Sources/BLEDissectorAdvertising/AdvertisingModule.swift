public import BLEInspectCore

/// Advertising data (AD) and extended inquiry response (EIR) structures.
///
/// - `StandardTables.advertisingData` key 0: a whole AD block, walked structure by structure.
/// - `StandardTables.adType`: one decoder per AD type of the Assigned Numbers (plugins add others).
/// - `StandardTables.companyID`: Apple 0x004C (iBeacon, overflow area), Microsoft 0x0006 (Swift
///   Pair).
/// - `StandardTables.serviceData`: Eddystone 0xFEAA, Google Fast Pair 0xFE2C, Exposure
///   Notification 0xFD6F.
/// - AltBeacon is recognised in the manufacturer data of companies without a decoder.
///
/// Filter aliases: `adv.name` is the local name (`btcommon.eir_ad.entry.device_name`); `adv.uuid`
/// is every advertised service UUID of any width.
public enum AdvertisingModule: DissectorModule {
    public static let name = "advertising"

    /// The key of a whole AD block in `StandardTables.advertisingData`.
    public static let blockKey: UInt64 = 0

    /// Service UUIDs (with names) to look for in Apple's overflow-area bitmaps, besides the known
    /// ones: registry configuration, set by `--overflow-uuid`.
    public static let overflowUUIDs = RegistryConfiguration.Key<[AppleOverflowUUIDList.Entry]>(
        "advertising.overflow_uuids",
        default: []
    )

    public static func register(_ registry: inout RegistryBuilder) {
        let ad = registry.register(ADField.self)
        let mesh = MeshFields(
            pbadv: registry.register(PBADVField.self),
            beacon: registry.register(MeshBeaconField.self),
            network: registry.register(MeshNetworkField.self)
        )
        let apple = registry.register(AppleField.self)
        let iBeacon = registry.register(IBeaconField.self)
        let eddystone = registry.register(EddystoneField.self)
        let swiftPair = registry.register(SwiftPairField.self)
        let fastPair = registry.register(FastPairField.self)
        let gaen = registry.register(GAENField.self)
        let altBeacon = registry.register(AltBeaconField.self)

        // No advertising decoder keeps capture state: Apple's overflow-area decoder reads only the
        // UUID list of the registry's configuration (`overflowUUIDs`) and of the capture's start.
        // The built-in decoders are called straight from the block walker (no existential box
        // per structure); the same decoders are bound in the table, where plugins add other AD
        // types.
        let builtIn = ADTypeDissector(type: 0, f: ad, meshFields: mesh, altBeacon: altBeacon)
        var decodes = [Bool](repeating: false, count: 256)
        for type in ADTypeDissector.decodedTypes {
            var decoder = builtIn
            decoder.type = type
            decodes[Int(type)] = true
            registry.bind(
                decoder,
                to: StandardTables.adType,
                key: DissectorKey(type),
                label: ADNames.adTypeByCode[Int(type)],
                keepsNoState: true,
                dispatchesInto: [StandardTables.companyID, StandardTables.serviceData]
            )
        }
        registry.bind(
            ADBlockDissector(f: ad, builtIn: builtIn, decodes: decodes),
            to: StandardTables.advertisingData,
            key: DissectorKey(blockKey),
            label: "Advertising data",
            keepsNoState: true,
            dispatchesInto: [StandardTables.adType]
        )
        registry.bind(
            AppleDissector(f: apple, beacon: iBeacon),
            to: StandardTables.companyID,
            key: DissectorKey(0x004C),
            label: "Apple",
            keepsNoState: true
        )
        registry.bind(
            MicrosoftDissector(f: swiftPair),
            to: StandardTables.companyID,
            key: DissectorKey(0x0006),
            label: "Microsoft Beacon (Swift Pair)",
            keepsNoState: true
        )
        registry.bind(
            EddystoneDissector(f: eddystone),
            to: StandardTables.serviceData,
            key: DissectorKey(BluetoothUUID(uuid16: 0xFEAA)),
            label: "Eddystone",
            keepsNoState: true
        )
        registry.bind(
            FastPairDissector(f: fastPair),
            to: StandardTables.serviceData,
            key: DissectorKey(BluetoothUUID(uuid16: 0xFE2C)),
            label: "Google Fast Pair",
            keepsNoState: true
        )
        registry.bind(
            GAENDissector(f: gaen),
            to: StandardTables.serviceData,
            key: DissectorKey(BluetoothUUID(uuid16: 0xFD6F)),
            label: "Exposure Notification",
            keepsNoState: true
        )

        registry.alias("adv.name", for: "btcommon.eir_ad.entry.device_name")
    }
}
