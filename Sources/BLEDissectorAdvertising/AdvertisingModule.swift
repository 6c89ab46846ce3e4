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

        // No advertising decoder uses capture state: Apple's overflow-area decoder reads only the
        // UUID list of the registry's configuration (`overflowUUIDs`) and of the capture's start.
        // The built-in decoders are called straight from the block walker (no existential box
        // per structure); the same decoders are bound in the table, where plugins add other AD
        // types. Each binding records the tables its decoder hands off into.
        registry.declare(StandardTables.advertisingData, "Advertising data blocks")
        registry.declare(StandardTables.adType, "Advertising data structures by AD type")
        registry.declare(StandardTables.companyID, "Manufacturer-specific data by company identifier")
        registry.declare(StandardTables.serviceData, "Service data by service UUID")
        let builtIn = ADTypeDissector(
            type: 0,
            f: ad,
            meshFields: mesh,
            altBeacon: altBeacon,
            services: registry.handoff(into: StandardTables.serviceData),
            companies: registry.handoff(into: StandardTables.companyID)
        )
        func recordPayloadHandoffs(_ s: inout BindingScope) {
            _ = s.handoff(into: StandardTables.serviceData)
            _ = s.handoff(into: StandardTables.companyID)
        }
        var decodes = [Bool](repeating: false, count: 256)
        for type in ADTypeDissector.decodedTypes {
            var decoder = builtIn
            decoder.type = type
            decodes[Int(type)] = true
            registry.bind(to: StandardTables.adType, key: type, label: ADNames.adTypeByCode[Int(type)]) { s in
                recordPayloadHandoffs(&s)
                return decoder
            }
        }
        registry.bind(to: StandardTables.advertisingData, key: UInt8(blockKey), label: "Advertising data") { s in
            recordPayloadHandoffs(&s)
            return ADBlockDissector(
                f: ad,
                builtIn: builtIn,
                decodes: decodes,
                types: s.handoff(into: StandardTables.adType)
            )
        }
        registry.bind(
            AppleDissector(f: apple, beacon: iBeacon),
            to: StandardTables.companyID,
            key: 0x004C,
            label: "Apple"
        )
        registry.bind(
            MicrosoftDissector(f: swiftPair),
            to: StandardTables.companyID,
            key: 0x0006,
            label: "Microsoft Beacon (Swift Pair)"
        )
        let services: [(UInt16, String, any Dissector)] = [
            (0xFEAA, "Eddystone", EddystoneDissector(f: eddystone)),
            (0xFE2C, "Google Fast Pair", FastPairDissector(f: fastPair)),
            (0xFD6F, "Exposure Notification", GAENDissector(f: gaen)),
        ]
        for (uuid, label, dissector) in services {
            registry.bind(dissector, to: StandardTables.serviceData, key: BluetoothUUID(uuid16: uuid), label: label)
        }

        registry.alias("adv.name", for: "btcommon.eir_ad.entry.device_name")
    }
}
