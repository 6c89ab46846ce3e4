import BLEInspectCore

/// Decoders of well-known attribute values, bound by characteristic or descriptor UUID in
/// `StandardTables.gattUUID`. The ATT decoders look up the UUID of the handle a value belongs to
/// (learned from discovery) and run the decoder bound to it over the value bytes.
struct GATTValueDissector: Dissector {
    enum Kind: Sendable {
        /// UTF-8 text filling the value.
        case string(ATTField)
        case appearance, peripheralPreferredConnectionParameters, serviceChanged, batteryLevel, pnpID
        case clientCharacteristicConfiguration, txPowerLevel, l2capPSM
        /// A characteristic declaration read as a value (Read Response of a 0x2803 handle).
        case characteristicDeclaration
        /// External Report Reference: the UUID of a characteristic outside the HID service.
        case externalReportReference
    }

    let f: Fields<ATTField>
    let kind: Kind

    /// Every decoder with the UUID it is bound to.
    static func all(_ f: Fields<ATTField>) -> [(BluetoothUUID, GATTValueDissector)] {
        let list: [(UInt16, Kind)] = [
            (0x2A00, .string(.deviceName)),
            (0x2A01, .appearance),
            (0x2A04, .peripheralPreferredConnectionParameters),
            (0x2A05, .serviceChanged),
            (0x2A07, .txPowerLevel),
            (0x2A19, .batteryLevel),
            (0x2A24, .string(.modelNumber)),
            (0x2A25, .string(.serialNumber)),
            (0x2A26, .string(.firmwareRevision)),
            (0x2A27, .string(.hardwareRevision)),
            (0x2A28, .string(.softwareRevision)),
            (0x2A29, .string(.manufacturerName)),
            (0x2A50, .pnpID),
            (0x2901, .string(.userDescription)),
            (0x2902, .clientCharacteristicConfiguration),
            (0x2907, .externalReportReference),
        ]
        return list.map { (BluetoothUUID(uuid16: $0.0), GATTValueDissector(f: f, kind: $0.1)) }
            + [
                (GATTNames.l2capPSMCharacteristic, GATTValueDissector(f: f, kind: .l2capPSM)),
                (GATTNames.characteristic, GATTValueDissector(f: f, kind: .characteristicDeclaration)),
            ]
    }

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        switch kind {
        case .string(let field):
            let count = reader.remaining
            let text = reader.remainingSlice
            try reader.skip(count)
            context.tree.add(f[field], text: String(decoding: text, as: UTF8.self), at..<(at + count), source: src)
            context.appendInfo("\"" + TerminalSafeText.escape(text) + "\"")

        case .appearance:
            let v = try reader.readUInt16()
            let r = at..<(at + 2)
            context.tree.open(f[.appearance], .unsigned(UInt64(v)), r, source: src)
            context.tree.add(f[.appearanceCategory], .unsigned(UInt64(v >> 6)), r, source: src)
            context.tree.add(f[.appearanceSubcategory], .unsigned(UInt64(v & 0x3F)), r, source: src)
            context.tree.close()
            context.appendInfo(GATTNames.appearanceName(v) ?? "Appearance " + ATTNames.hex16(v))
            try reader.expectEnd("Appearance value")

        case .peripheralPreferredConnectionParameters:
            let minimum = try context.addUInt16(f[.minimumConnectionInterval], &reader)
            let maximum = try context.addUInt16(f[.maximumConnectionInterval], &reader)
            let latency = try context.addUInt16(f[.peripheralLatency], &reader)
            let timeout = try context.addUInt16(f[.supervisionTimeout], &reader)
            context.appendInfo(
                "Interval: \(minimum)–\(maximum) (×1.25 ms), Latency: \(latency), Timeout: \(timeout) (×10 ms)"
            )
            try reader.expectEnd("Peripheral Preferred Connection Parameters")

        case .serviceChanged:
            let start = try context.addUInt16(f[.startingHandle], &reader)
            let end = try context.addUInt16(f[.endingHandle], &reader)
            context.appendInfo("Changed: " + ATTInfo.range(start, end))
            let state = ATTState.of(context)
            if context.packet.attOpcode == 0x1D, let connection = state.valueConnection,
                let db = state.existingDatabase(connection)
            {
                db.forget(start, end)
                context.expert(
                    .note,
                    "Service Changed: what was learned about handles " + ATTNames.hex16(start) + ".."
                        + ATTNames.hex16(end) + " is forgotten",
                    at..<(at + 4),
                    source: src
                )
            }
            try reader.expectEnd("Service Changed value")

        case .batteryLevel:
            let v = try context.addUInt8(f[.batteryLevel], &reader)
            context.appendInfo("\(v)%")
            if v > 100 {
                context.expert(.warning, "Battery level \(v) is above 100%", at..<(at + 1), source: src)
            }
            try reader.expectEnd("Battery Level value")

        case .pnpID:
            try context.addUInt8(f[.pnpVendorIDSource], &reader)
            let vendor = try context.addUInt16(f[.pnpVendorID], &reader)
            let product = try context.addUInt16(f[.pnpProductID], &reader)
            let version = try context.addUInt16(f[.pnpProductVersion], &reader)
            context.appendInfo(
                "Vendor " + ATTNames.hex16(vendor) + ", Product " + ATTNames.hex16(product) + ", Version "
                    + ATTNames.hex16(version)
            )
            try reader.expectEnd("PnP ID value")

        case .clientCharacteristicConfiguration:
            let v = try reader.readUInt16()
            let r = at..<(at + 2)
            context.tree.open(f[.cccd], .unsigned(UInt64(v)), r, source: src)
            context.tree.add(f[.cccdNotification], .boolean(v & 0x0001 != 0), r, source: src)
            context.tree.add(f[.cccdIndication], .boolean(v & 0x0002 != 0), r, source: src)
            context.tree.add(f[.cccdReserved], .unsigned(UInt64(v >> 2)), r, source: src)
            context.tree.close()
            let setting: String =
                switch v & 3 {
                case 1: "Notification"
                case 2: "Indication"
                case 3: "Notification, Indication"
                default: "Notifications and indications off"
                }
            context.appendInfo(setting)
            if v & 0xFFFC != 0 {
                context.expert(.warning, "Reserved bits set in the Client Characteristic Configuration", r, source: src)
            }
            try reader.expectEnd("Client Characteristic Configuration value")

        case .txPowerLevel:
            let v = try reader.readInt8()
            context.tree.add(f[.txPowerLevel], .signed(Int64(v)), at..<(at + 1), source: src)
            context.appendInfo("\(v) dBm")
            try reader.expectEnd("Tx Power Level value")

        case .l2capPSM:
            try l2capPSM(&reader, &context)

        case .characteristicDeclaration:
            // As Wireshark does: the value handle is shown and recorded under the characteristic's
            // UUID, as by discovery (the connection's GATT database is not changed).
            let declaration = try CharacteristicDeclaration(&reader)
            let (valueHandle, uuid) = (declaration.valueHandle, declaration.uuid)
            context.addATTProperties(f, declaration.properties, at..<(at + 1), source: src)
            let state = ATTState.of(context)
            var evicted = false
            let record = state.handleRecord(context.controller, evicted: &evicted)
            let db = state.valueConnection.flatMap { state.existingDatabase($0) }
            let handleRange = (at + 1)..<(at + 3)
            context.addATTHandle(f, .characteristicValueHandle, valueHandle, handleRange, db, record, source: src)
            context.addATTUUID(f, uuid, .uuid16, .uuid128, (at + 3)..<reader.offset, source: src)
            context.recordATTHandle(
                valueHandle,
                RecordedHandle(uuid: uuid, role: .characteristic),
                record,
                handleRange,
                source: src
            )
            context.appendUUIDInfo(uuid)

        case .externalReportReference:
            let count = reader.remaining
            guard count == 2 || count == 16 else {
                throw DecodeError(.malformed, offset: at, "an External Report Reference is 2 or 16 bytes, not \(count)")
            }
            let uuid = try reader.readUUID(bytes: count)
            context.addATTUUID(f, uuid, .uuid16, .uuid128, at..<(at + count), source: src)
            context.appendUUIDInfo(uuid)
        }
    }

    /// A PSM in any encoding `PSMValue` knows, published for the L2CAP layer (`PublishedPSMs`)
    /// when a server sends it (read, notified or indicated).
    private func l2capPSM(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let (src, at, count) = (reader.source, reader.offset, reader.remaining)
        guard let value = PSMValue.decode(reader.remainingSlice) else {
            throw DecodeError(
                .malformed,
                offset: at,
                "an L2CAP PSM value in no known encoding (little- or big-endian uint16, decimal or 0x hex text, JSON with a psm member)"
            )
        }
        try reader.skip(count)
        let r = at..<(at + count)
        context.tree.add(f[.gattL2CAPPSM], .unsigned(UInt64(value.psm)), r, source: src)
        context.tree.add(f[.gattL2CAPPSMEncoding], .unsigned(UInt64(value.encoding.rawValue)), r, source: src)
        if let member = value.member { context.tree.add(f[.gattL2CAPPSMMember], text: member, r, source: src) }
        var info = "L2CAP PSM: " + ATTNames.hex16(value.psm)
        if value.encoding != .littleEndian {
            info += " (" + (PSMValue.Encoding.names.lookup(UInt64(value.encoding.rawValue)) ?? "")
            if let member = value.member { info += " \"" + TerminalSafeText.escape(member) + "\"" }
            info += ")"
        }
        for frame in context.forward?.later(.channelOnPSM, of: context.frameNumber) ?? [] {
            context.tree.add(f[.gattL2CAPPSMChannelIn], .unsigned(UInt64(frame)), r, source: src)
        }
        info += PublishedPSMs.channelsNote(context)
        context.appendInfo(info)
        if let warning = PublishedPSMs.rangeWarning(value.psm) { context.expert(.warning, warning, r, source: src) }
        guard let via = PublishedPSMs.via(attOpcode: context.packet.attOpcode) else { return }
        PublishedPSMs.publish(value.psm, via: via, connection: ATTState.of(context).valueConnection, &context)
    }
}
