import BLEInspectCore

/// Decodes the data of one AD structure of a given AD type (the reader starts after the type
/// octet). One instance is bound per AD type in `StandardTables.adType`.
struct ADTypeDissector: Dissector {
    var type: UInt8
    let f: Fields<ADField>
    let meshFields: MeshFields
    let altBeacon: Fields<AltBeaconField>
    /// Service data by UUID, manufacturer data by company.
    let services: Handoff<BluetoothUUID>
    let companies: Handoff<UInt16>

    /// Every AD type this module decodes.
    static let decodedTypes: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x14, 0x15,
        0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
        0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x31, 0x32, 0x34, 0x3D, 0xFF,
    ]

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        switch type {
        case 0x01: try flags(&r, &c)
        case 0x02, 0x03: try uuidList(width: 2, solicited: false, &r, &c)
        case 0x04, 0x05: try uuidList(width: 4, solicited: false, &r, &c)
        case 0x06, 0x07: try uuidList(width: 16, solicited: false, &r, &c)
        case 0x14: try uuidList(width: 2, solicited: true, &r, &c)
        case 0x1F: try uuidList(width: 4, solicited: true, &r, &c)
        case 0x15: try uuidList(width: 16, solicited: true, &r, &c)
        case 0x08, 0x09:
            let name = try c.emitString(f[.deviceName], &r, r.remaining)
            c.appendQuotedInfo(untrusted: name)
        case 0x0A:
            try c.addInt8(f[.powerLevel], &r)
            try r.expectEnd("Tx Power Level")
        case 0x0D: try classOfDevice(&r, &c)
        case 0x0E, 0x1D: try fixed(f[.hashC], 16, "Simple Pairing Hash C", &r, &c)
        case 0x0F, 0x1E: try fixed(f[.randomizerR], 16, "Simple Pairing Randomizer R", &r, &c)
        case 0x10: try deviceIDOrTK(&r, &c)
        case 0x11: try oobFlags(&r, &c)
        case 0x12:
            try c.addUInt16(f[.connectionIntervalMin], &r)
            try c.addUInt16(f[.connectionIntervalMax], &r)
            try r.expectEnd("Peripheral Connection Interval Range")
        case 0x16: try serviceData(width: 2, &r, &c)
        case 0x20: try serviceData(width: 4, &r, &c)
        case 0x21: try serviceData(width: 16, &r, &c)
        case 0x17, 0x18:
            guard r.remaining > 0 else { throw Self.empty(r, "target address") }
            while !r.isAtEnd { try c.addAddress(f[.bdAddr], &r) }
        case 0x19: try appearance(&r, &c)
        case 0x1A:
            try c.addUInt16(f[.advertisingInterval], &r)
            try r.expectEnd("Advertising Interval")
        case 0x2F: try advertisingIntervalLong(&r, &c)
        case 0x1B: try leDeviceAddress(&r, &c)
        case 0x1C:
            try c.addUInt8(f[.leRole], &r)
            try r.expectEnd("LE Role")
        case 0x22: try fixed(f[.leSCConfirmationValue], 16, "LE Secure Connections Confirmation Value", &r, &c)
        case 0x23: try fixed(f[.leSCRandomValue], 16, "LE Secure Connections Random Value", &r, &c)
        case 0x24: try uri(&r, &c)
        case 0x25: try indoorPositioning(&r, &c)
        case 0x26: try transportDiscovery(&r, &c)
        case 0x27: try leFeatures(&r, &c)
        case 0x28:
            try c.addBytes(f[.channelMap], &r, 5)
            try c.addUInt16(f[.instant], &r)
            try r.expectEnd("Channel Map Update Indication")
        case 0x29: try mesh(f[.meshPBADV], MeshDissector.Kind.pbadv, &r, &c)
        case 0x2A: try mesh(f[.meshMessage], MeshDissector.Kind.network, &r, &c)
        case 0x2B: try mesh(f[.meshBeacon], MeshDissector.Kind.beacon, &r, &c)
        case 0x2C: try bigInfo(&r, &c)
        case 0x2D: try broadcastCode(&r, &c)
        case 0x2E:
            try c.addUInt24(f[.rsiHash], &r)
            try c.addUInt24(f[.rsiPrand], &r)
            try r.expectEnd("Resolvable Set Identifier")
        case 0x30: try c.emitString(f[.broadcastName], &r, r.remaining)
        case 0x31: try encryptedData(&r, &c)
        case 0x32:
            try c.addUInt32(f[.pawrRspAA], &r)
            try c.addUInt8(f[.pawrNumSubevents], &r)
            try c.addUInt8(f[.pawrSubeventInterval], &r)
            try c.addUInt8(f[.pawrResponseSlotDelay], &r)
            try c.addUInt8(f[.pawrResponseSlotSpacing], &r)
            try r.expectEnd("Periodic Advertising Response Timing Information")
        case 0x3D: try threeD(&r, &c)
        case 0xFF: try manufacturerData(&r, &c)
        default:
            // Electronic Shelf Label (0x34) and types bound here without a decoder: the octets.
            c.addRest(f[.data], &r)
        }
    }

    static func empty(_ r: ByteReader, _ what: String) -> DecodeError {
        DecodeError(.malformed, offset: r.offset, "empty \(what)")
    }

    // MARK: Flags, lists, fixed values

    private func flags(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        // The Flags data may be zero or more octets; only the first has defined bits.
        guard !r.isAtEnd else { return }
        try c.emitBits(Self.flagBits, f, &r)
        c.addRest(f[.data], &r)
    }

    private func uuidList(
        width: Int,
        solicited: Bool,
        _ r: inout ByteReader,
        _ c: inout DissectionContext
    ) throws(DecodeError) {
        while r.remaining >= width {
            let start = r.offset
            let uuid = try r.readUUID(bytes: width)
            let range = start..<r.offset
            ADTypeDissector.addTypedUUID(uuid, width: width, range, source: r.source, f, &c)
            c.tree.add(f[solicited ? .solicitedUUID : .serviceUUID], .uuid(uuid), range, source: r.source)
        }
        guard r.isAtEnd else {
            throw DecodeError(
                .malformed,
                offset: r.offset,
                "\(r.remaining) octet(s) left over: not a whole \(width * 8)-bit UUID"
            )
        }
    }

    /// Adds a UUID under Wireshark's field for its width: `uuid_16`; `uuid_32` or `uuid_128` when
    /// the UUID has a known name, `custom_uuid_32` or `custom_uuid_128` when it has none.
    static func addTypedUUID(
        _ uuid: BluetoothUUID,
        width: Int,
        _ range: Range<Int>,
        source: Int,
        _ f: Fields<ADField>,
        _ c: inout DissectionContext
    ) {
        switch width {
        case 2:
            c.tree.add(f[.uuid16], .unsigned(UInt64(uuid.shortValue ?? 0)), range, source: source)
        case 4:
            let v = uuid.shortValue ?? 0
            let known = v <= 0xFFFF && SIGNames.uuid16(UInt16(v)) != nil
            c.tree.add(f[known ? .uuid32 : .customUUID32], .unsigned(UInt64(v)), range, source: source)
        default:
            let known: Bool
            if let short = uuid.uuid16 {
                known = SIGNames.uuid16(short) != nil
            } else {
                known = SIGNames.uuid128(uuid) != nil
            }
            c.tree.add(f[known ? .uuid128 : .customUUID128], .uuid(uuid), range, source: source)
        }
    }

    private func fixed(
        _ id: FieldID,
        _ count: Int,
        _ what: String,
        _ r: inout ByteReader,
        _ c: inout DissectionContext
    ) throws(DecodeError) {
        let n = r.remaining
        try c.addBytes(id, &r, n)
        guard n == count else {
            throw DecodeError(.malformed, offset: r.offset - n, "\(what) is \(count) octets, not \(n)")
        }
    }

    private func classOfDevice(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        try c.emitBits(Self.classOfDeviceBits, f, &r, bytes: 3, under: .classOfDevice)
        try r.expectEnd("Class of Device")
    }

    /// 0x10 is the Device ID (8 octets, EIR) or the Security Manager TK value (16 octets, OOB).
    private func deviceIDOrTK(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        switch r.remaining {
        case 8:
            try c.addUInt16(f[.didVendorIDSource], &r)
            try c.addUInt16(f[.didVendorID], &r)
            try c.addUInt16(f[.didProductID], &r)
            try c.addUInt16(f[.didVersion], &r)
        case 16:
            try c.addBytes(f[.smTKValue], &r, 16)
        default:
            let n = r.remaining
            c.addRest(f[.data], &r)
            throw DecodeError(
                .malformed,
                offset: r.offset - n,
                "\(n) octets: neither a Device ID (8) nor a TK value (16)"
            )
        }
    }

    private func oobFlags(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        try c.emitBits(Self.oobFlagBits, f, &r)
        try r.expectEnd("Security Manager Out of Band Flags")
    }

    private func appearance(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        try c.emitBits(Self.appearanceBits, f, &r, bytes: 2, under: .appearance)
        try r.expectEnd("Appearance")
    }

    private func advertisingIntervalLong(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let n = r.remaining
        guard n == 3 || n == 4 else {
            c.addRest(f[.data], &r)
            throw DecodeError(
                .malformed,
                offset: r.offset - n,
                "Advertising Interval - long is 3 or 4 octets, not \(n)"
            )
        }
        let start = r.offset
        let v = try r.readUnsigned(bytes: n)
        c.tree.add(f[.advertisingIntervalLong], .unsigned(v), start..<r.offset, source: r.source)
    }

    /// The address (6 octets, least significant first), then an octet whose bit 0 is its type.
    private func leDeviceAddress(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        try c.addAddress(f[.bdAddr], &r)
        try c.emitBits(Self.leAddressTypeBits, f, &r)
        try r.expectEnd("LE Bluetooth Device Address")
    }

    /// The first character is a code point naming the scheme (UTF-8 encoded), the rest is the URI
    /// without its scheme.
    private func uri(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        let b0 = try r.readUInt8()
        var code = UInt64(b0)
        if b0 >= 0x80 {
            // A two- or three-octet UTF-8 sequence.
            let extra = b0 & 0xE0 == 0xC0 ? 1 : (b0 & 0xF0 == 0xE0 ? 2 : -1)
            guard extra > 0 else {
                throw DecodeError(.malformed, offset: start, "URI scheme is not a UTF-8 code point")
            }
            code = UInt64(b0 & (extra == 1 ? 0x1F : 0x0F))
            for _ in 0..<extra {
                let b = try r.readUInt8()
                guard b & 0xC0 == 0x80 else {
                    throw DecodeError(.malformed, offset: start, "URI scheme is not a UTF-8 code point")
                }
                code = code << 6 | UInt64(b & 0x3F)
            }
        }
        c.tree.add(f[.uriScheme], .unsigned(code), start..<r.offset, source: r.source)
        let rest = String(decoding: r.remainingSlice, as: UTF8.self)
        _ = r.readRest()
        let text = (ADNames.uriScheme(code) ?? "") + rest
        c.tree.add(f[.uri], text: text, start..<r.offset, source: r.source)
    }

    // MARK: Service data and manufacturer data

    private func serviceData(width: Int, _ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        let uuid = try r.readUUID(bytes: width)
        let range = start..<r.offset
        ADTypeDissector.addTypedUUID(uuid, width: width, range, source: r.source, f, &c)
        c.tree.add(f[.serviceUUID], .uuid(uuid), range, source: r.source)
        guard !r.isAtEnd else { return }
        var payload = r.readRest()
        c.tree.open(f[.serviceData], .bytes, payload.offset..<(payload.offset + payload.remaining), source: r.source)
        if c.registry.isBound(services, uuid) { c.handOff(services, uuid, &payload) }
        c.tree.close()
    }

    private func manufacturerData(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let company = try c.addUInt16(f[.companyID], &r)
        guard !r.isAtEnd else { return }
        var payload = r.readRest()
        c.tree.open(f[.data], .bytes, payload.offset..<(payload.offset + payload.remaining), source: r.source)
        if c.registry.isBound(companies, company) {
            c.handOff(companies, company, &payload)
        } else if AltBeaconDissector.matches(payload) {
            c.run(AltBeaconDissector(f: altBeacon), &payload)
        }
        c.tree.close()
    }

    // MARK: Structured types

    private func indoorPositioning(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let v = try c.emitBits(Self.ipsFlagBits, f, &r, under: .ipsFlags)
        if v & 0x01 != 0 {
            if v & 0x02 == 0 {
                try c.addInt32(f[.ipsLatitude], &r)
                try c.addInt32(f[.ipsLongitude], &r)
            } else {
                try c.addInt16(f[.ipsLocalNorth], &r)
                try c.addInt16(f[.ipsLocalEast], &r)
            }
        }
        if v & 0x04 != 0 { try c.addInt8(f[.ipsTxPowerLevel], &r) }
        if v & 0x10 != 0 { try c.addUInt8(f[.ipsFloorNumber], &r) }
        if v & 0x08 != 0 { try c.addUInt16(f[.ipsAltitude], &r) }
        if v & 0x20 != 0 { try c.emitBits(Self.ipsUncertaintyBits, f, &r, under: .ipsUncertainty) }
        try r.expectEnd("Indoor Positioning")
    }

    /// One or more transport blocks: organization, flags, data length, data.
    private func transportDiscovery(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        guard r.remaining > 0 else { throw Self.empty(r, "Transport Discovery Data") }
        while !r.isAtEnd {
            try c.addUInt8(f[.tdsOrganizationID], &r)
            try c.emitBits(Self.tdsFlagBits, f, &r, under: .tdsFlags)
            let length = try c.addUInt8(f[.tdsDataLength], &r)
            if length > 0 { try c.addBytes(f[.tdsData], &r, Int(length)) }
        }
    }

    private func leFeatures(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        var octet = 0
        while !r.isAtEnd {
            let start = r.offset
            let v = try r.readUInt8()
            let range = start..<r.offset
            c.tree.open(f[.leFeatures], .unsigned(UInt64(v)), range, source: r.source)
            for bit in 0..<8 where v & (1 << UInt8(bit)) != 0 {
                c.tree.add(f[.leFeature], .unsigned(UInt64(octet * 8 + bit)), range, source: r.source)
            }
            c.tree.close()
            octet += 1
        }
    }

    private func mesh(
        _ id: FieldID,
        _ body: MeshDissector.Kind,
        _ r: inout ByteReader,
        _ c: inout DissectionContext
    ) throws(DecodeError) {
        guard !r.isAtEnd else { throw Self.empty(r, "mesh PDU") }
        var payload = r.readRest()
        c.tree.open(id, .bytes, payload.offset..<(payload.offset + payload.remaining), source: r.source)
        c.run(MeshDissector(kind: body, fields: meshFields), &payload)
        c.tree.close()
    }

    private func bigInfo(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let n = r.remaining
        guard n == 33 || n == 57 else {
            c.addRest(f[.data], &r)
            throw DecodeError(.malformed, offset: r.offset - n, "BIGInfo is 33 or 57 octets, not \(n)")
        }
        try c.emitBits(Self.bigOffsetBits, f, &r, bytes: 4)
        try c.emitBits(Self.bigSubeventBits, f, &r, bytes: 4)
        try c.emitBits(Self.bisSpacingBits, f, &r, bytes: 3)
        try c.addUInt8(f[.maxPDU], &r)
        try c.addUInt8(f[.bigRFU], &r)
        try c.addUInt32(f[.seedAccessAddress], &r)
        try c.emitBits(Self.sduBits, f, &r, bytes: 4)
        try c.addUInt16(f[.baseCRCInit], &r)
        try c.emitBits(Self.bigChannelMapBits, f, &r, bytes: 5)
        try c.emitBits(Self.bisPayloadCountBits, f, &r, bytes: 5)
        if !r.isAtEnd {
            try c.addBytes(f[.giv], &r, 8)
            try c.addBytes(f[.gskd], &r, 16)
        }
    }

    private func broadcastCode(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let n = r.remaining
        let start = r.offset
        let body = r.readRest()
        var octets = body.remainingSlice
        while let last = octets.last, last == 0 { octets = octets.dropLast() }
        c.tree.add(
            f[.broadcastCode],
            text: String(decoding: octets, as: UTF8.self),
            start..<r.offset,
            source: r.source
        )
        guard n == 16 else {
            throw DecodeError(.malformed, offset: start, "Broadcast_Code is 16 octets, not \(n)")
        }
    }

    /// Randomizer (5 octets), encrypted payload, MIC (4 octets) (Core Supplement §1.23).
    private func encryptedData(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let n = r.remaining
        guard n >= 9 else {
            c.addRest(f[.data], &r)
            throw DecodeError(.malformed, offset: r.offset - n, "Encrypted Advertising Data needs 9 octets, has \(n)")
        }
        try c.addBytes(f[.eadRandomizer], &r, 5)
        if n > 9 { try c.addBytes(f[.eadPayload], &r, n - 9) }
        try c.addBytes(f[.eadMIC], &r, 4)
    }

    private func threeD(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        try c.emitBits(Self.threeDBits, f, &r)
        try c.addUInt8(f[.threeDSPathLossThreshold], &r)
        try r.expectEnd("3D Information Data")
    }

    // MARK: Bit fields, in the order shown (masks from `ADField.descriptor`)

    private static let flagBits = BitFields<ADField>([
        .flagsReserved, .flagsLEBREDRHost, .flagsLEBREDRController, .flagsBREDRNotSupported,
        .flagsGeneralDiscoverable, .flagsLimitedDiscoverable,
    ])
    private static let classOfDeviceBits = BitFields<ADField>([
        .codInformation, .codTelephony, .codAudio, .codObjectTransfer, .codCapturing, .codRendering,
        .codNetworking, .codPositioning, .codLEAudio, .codLimitedDiscoverable, .codMajorDeviceClass,
        .codMinorDeviceClass, .codFormatType,
    ])
    private static let oobFlagBits = BitFields<ADField>([
        .oobReserved, .oobAddressType, .oobLEBREDRSupport, .oobLESupportedHost, .oobDataPresent,
    ])
    private static let appearanceBits = BitFields<ADField>([.appearanceCategory, .appearanceSubcategory])
    private static let leAddressTypeBits = BitFields<ADField>([.leBDAddrReserved, .leBDAddrType])
    private static let ipsFlagBits = BitFields<ADField>([
        .ipsFlagsReserved, .ipsFlagsLocationName, .ipsFlagsUncertainty, .ipsFlagsFloorNumber, .ipsFlagsAltitude,
        .ipsFlagsTxPower, .ipsFlagsCoordinateSystem, .ipsFlagsCoordinates,
    ])
    private static let ipsUncertaintyBits = BitFields<ADField>([
        .ipsUncertaintyReserved, .ipsUncertaintyPrecision, .ipsUncertaintyUpdateTime, .ipsUncertaintyStationary,
    ])
    private static let tdsFlagBits = BitFields<ADField>([
        .tdsFlagsReserved, .tdsFlagsTransportState, .tdsFlagsIncomplete, .tdsFlagsRole,
    ])
    private static let bigOffsetBits = BitFields<ADField>([.bigOffset, .bigOffsetUnits, .isoInterval, .numBIS])
    private static let bigSubeventBits = BitFields<ADField>([.nse, .bn, .subInterval, .pto])
    private static let bisSpacingBits = BitFields<ADField>([.bisSpacing, .irc])
    private static let sduBits = BitFields<ADField>([.sduInterval, .maxSDU])
    private static let bigChannelMapBits = BitFields<ADField>([.bigChannelMap, .phy])
    private static let bisPayloadCountBits = BitFields<ADField>([.bisPayloadCount, .framing])
    private static let threeDBits = BitFields<ADField>([
        .threeDSFactoryTestMode, .threeDSReserved, .threeDSSendBatteryLevelReportOnStartup,
        .threeDSBatteryLevelReporting, .threeDSAssociationNotification,
    ])
}
