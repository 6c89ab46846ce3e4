public import BLEInspectCore

/// The parts of a source advert that the sources do not fix. A plan with none is exact.
public struct UnknownParts: Hashable, Sendable {
    /// A local name not wholly known: its expression, and the literal text known before and after
    /// the unknown part (both empty when nothing is known).
    public struct Name: Hashable, Sendable {
        public var expression: String
        public var prefix: String
        public var suffix: String

        /// The fewest UTF-8 bytes the name can have.
        public var minimumBytes: Int { prefix.utf8.count + suffix.utf8.count }
    }

    /// One element of the service UUID array: known, or unknown (any width: 16, 32 or 128 bits).
    public enum UUIDSlot: Hashable, Sendable {
        case known(BluetoothUUID)
        case unknown(expression: String)
    }

    public var name: Name?
    /// The whole UUID array, in order, when one of its elements is unknown.
    public var uuids: [UUIDSlot]?
    /// The UUID array's expression when how many UUIDs it holds is unknown.
    public var uuidList: String?
    /// The dictionary's expression when nothing of it is known.
    public var dictionary: String?
    /// Unknown iBeacon values (`major`, `minor`, `measured power`, `UUID`), when the advert is one.
    public var beaconValues: [String] = []

    public init() {}

    public var isEmpty: Bool {
        name == nil && uuids == nil && uuidList == nil && dictionary == nil && beaconValues.isEmpty
    }

    /// The unknown UUID expressions, in array order.
    public var unknownUUIDs: [String] {
        (uuids ?? []).compactMap {
            if case .unknown(let expression) = $0 { return expression }
            return nil
        }
    }
}

extension AdvertPlan {
    /// The plan for one `startAdvertising` call read from a source. Values the reader could not
    /// fix become `unknown` parts, each named by a `source.unresolved` warning; the checks then
    /// give what holds for every value they can take. Strings that are not UUIDs are
    /// `source.uuid.invalid` errors.
    public init(source advert: SourceAdvertisement) {
        var findings = advert.findings
        var unknown = UnknownParts()
        var name: String?
        switch advert.localName {
        case .resolved(let text): name = text
        case .unresolved(let expression):
            unknown.name = UnknownParts.Name(expression: expression, prefix: "", suffix: "")
        case .partial(let expression, let prefix, let suffix):
            unknown.name = UnknownParts.Name(expression: expression, prefix: prefix, suffix: suffix)
        case nil: break
        }
        if let unknownName = unknown.name {
            findings.append(Self.unresolved("CBAdvertisementDataLocalNameKey", unknownName.expression))
        }
        var slots: [UnknownParts.UUIDSlot] = []
        for value in advert.serviceUUIDs {
            switch value {
            case .resolved(let text):
                if let uuid = BluetoothUUID(text) {
                    slots.append(.known(uuid))
                } else {
                    findings.append(
                        Rules.sourceUUIDInvalid.finding(
                            "CBAdvertisementDataServiceUUIDsKey: \(Quote.text(text)) is not a UUID string "
                                + "CoreBluetooth accepts (4 or 8 hex digits, optionally 0x-prefixed, or the 36-character "
                                + "form); it is left out of the layout"
                        )
                    )
                }
            case .unresolved(let expression), .partial(let expression, _, _):
                slots.append(.unknown(expression: expression))
                findings.append(Self.unresolved("CBAdvertisementDataServiceUUIDsKey", expression))
            }
        }
        let known = slots.compactMap {
            if case .known(let uuid) = $0 { return uuid }
            return nil
        }
        if known.count != slots.count { unknown.uuids = slots }
        if let list = advert.serviceUUIDListUnknown {
            unknown.uuidList = list
            findings.append(Self.unresolved("CBAdvertisementDataServiceUUIDsKey", list))
        }
        if let dictionary = advert.dictionaryUnknown {
            unknown.dictionary = dictionary
            findings.append(Self.unresolved("the advertisement data", dictionary))
        }
        var beacon: IBeacon?
        if let source = advert.iBeacon {
            let uuid = source.uuid.flatMap(BluetoothUUID.init)
            if uuid == nil { unknown.beaconValues.append("UUID") }
            if source.major.flatMap(UInt16.init(exactly:)) == nil { unknown.beaconValues.append("major") }
            if source.minor.flatMap(UInt16.init(exactly:)) == nil { unknown.beaconValues.append("minor") }
            if source.measuredPower.flatMap(Int8.init(exactly:)) == nil {
                unknown.beaconValues.append("measured power")
            }
            beacon = IBeacon(
                uuid: uuid ?? BluetoothUUID(high: 0, low: 0, width: 16),
                major: source.major.flatMap(UInt16.init(exactly:)) ?? 0,
                minor: source.minor.flatMap(UInt16.init(exactly:)) ?? 0,
                measuredPower: source.measuredPower.flatMap(Int8.init(exactly:)) ?? 0
            )
            if !unknown.beaconValues.isEmpty {
                findings.append(
                    Rules.sourceUnresolved.finding(
                        "\(Quote.code(source.expression)): not known from the sources: the iBeacon's "
                            + unknown.beaconValues.joined(separator: ", ")
                            + "; the advert's size does not depend on them"
                    )
                )
            }
        }
        let location = advert.location
        let baseID = advert.id ?? "\(location.file):\(location.line)"
        self.init(
            id: advert.variant.map { "\(baseID) [\($0)]" } ?? baseID,
            source: location,
            data: AdvertFields(localName: name, serviceUUIDs: known),
            iBeacon: beacon,
            otherKeys: advert.otherKeys,
            platforms: [.ios],
            inputFindings: findings
        )
        self.unknown = unknown
        self.variant = advert.variant
    }

    private static func unresolved(_ what: String, _ expression: String) -> Finding {
        Rules.sourceUnresolved.finding(
            "\(what): \(Quote.code(expression)) is not known from the sources; the checks below hold for every "
                + "value it can take"
        )
    }
}
