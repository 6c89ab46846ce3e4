import BLEInspectCore

/// The advertising channels' access address.
let advertisingAccessAddress: UInt32 = 0x8E89_BED6

/// Whether the LL packet that `r` starts with is on the advertising access address.
private func isAdvertising(_ r: ByteReader) -> Bool {
    guard r.remaining >= 4, let a = r.peekUInt8(), let b = r.peekUInt8(at: 1), let c = r.peekUInt8(at: 2),
        let d = r.peekUInt8(at: 3)
    else { return true }
    return UInt32(a) | UInt32(b) << 8 | UInt32(c) << 16 | UInt32(d) << 24 == advertisingAccessAddress
}

/// Hands the LL packet in `r` to the link-layer dissector with what the sniffer said.
private func handOn(
    _ info: LinkLayerInfo,
    _ next: Handoff<UInt8>,
    _ r: inout ByteReader,
    _ ctx: inout DissectionContext
) {
    ctx.packet.linkLayer = info
    ctx.handOff(next, 0, &r)
}

/// pcap link type 272: the nRF Sniffer's header (protocol versions 2 and 3), then the packet.
struct NordicHeader: Dissector {
    let f: Fields<NordicField>
    let next: Handoff<UInt8>

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        ctx.tree.open(f.layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
        try ctx.addUInt8(f[.boardID], &r)
        guard let version = r.peekUInt8(at: 2), version == 2 || version == 3 else {
            let v = r.peekUInt8(at: 2).map(String.init) ?? "missing"
            throw DecodeError(
                .malformed,
                offset: r.offset,
                "nRF Sniffer protocol version \(v) is not supported (2 and 3 are)"
            )
        }
        let payloadLength = try ctx.addUInt16(f[.payloadLength], &r)
        try ctx.addUInt8(f[.protocolVersion], &r)
        try ctx.addUInt16(f[.packetCounter], &r)
        try ctx.addUInt8(f[.packetID], &r)
        if Int(payloadLength) != r.remaining {
            ctx.expert(
                .warning,
                "Payload length \(payloadLength) does not match the \(r.remaining) bytes that follow",
                start..<r.offset,
                source: r.source
            )
        }
        let hs = r.offset
        let headerLength = try ctx.addUInt8(f[.packetLength], &r)
        guard headerLength >= 10 else {
            throw DecodeError(.malformed, offset: hs, "packet header length \(headerLength) is below 10")
        }
        let fo = r.offset
        let flags = try r.readUInt8()
        let fr = fo..<r.offset
        ctx.tree.add(f[.flags], .unsigned(UInt64(flags)), fr, source: r.source)
        guard let channel = r.peekUInt8() else { throw DecodeError(.truncated, offset: r.offset, "no channel") }
        // What the flags mean depends on the channel kind: the packet's access address says.
        var ahead = r
        try ahead.skip(Int(headerLength) - 2)
        let advertising = isAdvertising(ahead)
        var info = LinkLayerInfo()
        info.crc = flags & 0x01 != 0 ? .valid : .invalid
        info.phy = (flags >> 4) & 0x07
        ctx.addFlag(f[.crcOK], UInt64(flags), mask: 0x01, fr, source: r.source)
        if advertising {
            if version == 3 && channel < 37 {
                ctx.addBits(f[.auxType], UInt64(flags), mask: 0x06, fr, source: r.source)
                info.auxiliary = true
            }
            if version == 3 { ctx.addFlag(f[.addressResolved], UInt64(flags), mask: 0x08, fr, source: r.source) }
        } else {
            ctx.addFlag(f[.direction], UInt64(flags), mask: 0x02, fr, source: r.source)
            ctx.addFlag(f[.encrypted], UInt64(flags), mask: 0x04, fr, source: r.source)
            info.sender = flags & 0x02 != 0 ? .central : .peripheral
            info.reportsEncryption = true
            // Encrypted and MIC OK; direction bit 0x02 set when the central sent it.
            info.decryptedMark = ByteMark(at: fo, flags | 0x0E)
            info.peripheralMarkBits = 0x02
            info.headerLength = (start + 1, payloadLength)
            if flags & 0x04 != 0 {
                ctx.addFlag(f[.micOK], UInt64(flags), mask: 0x08, fr, source: r.source)
                info.encrypted = true
                info.decrypted = flags & 0x08 != 0
            }
        }
        ctx.addBits(f[.phy], UInt64(flags), mask: 0x70, fr, source: r.source)
        info.channel = try ctx.addUInt8(f[.channel], &r)
        let rs = r.offset
        let rssi = try r.readUInt8()
        ctx.tree.add(f[.rssi], .signed(-Int64(rssi)), rs..<r.offset, source: r.source)
        try ctx.addUInt16(f[.eventCounter], &r)
        try ctx.addUInt32(version == 3 ? f[.timestamp] : f[.deltaTime], &r)
        if headerLength > 10 {
            ctx.tree.add(ctx.core[.data], .bytes, r.offset..<(r.offset + Int(headerLength) - 10), source: r.source)
            try r.skip(Int(headerLength) - 10)
        }
        ctx.tree.close()
        handOn(info, next, &r, &ctx)
    }
}

/// pcap link type 256: the RF header, then the packet.
struct RFHeader: Dissector {
    let f: Fields<RFField>
    let next: Handoff<UInt8>
    /// The one-bit flags and their masks, made once.
    static let flagFields: [(RFField, UInt64)] = [
        .dewhitened, .signalValid, .noiseValid, .decrypted, .referenceValid, .offensesValid, .aliased, .crcChecked,
        .crcValid, .micChecked, .micValid,
    ].map { ($0, $0.descriptor.bitmask) }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        ctx.tree.open(f.layer, .none, r.offset..<min(r.offset + 10, r.offset + r.remaining), source: r.source)
        var header = try r.readSlice(10)
        let flags =
            UInt16(header.peekUInt8(at: 8) ?? 0) | UInt16(header.peekUInt8(at: 9) ?? 0) << 8
        let rf = try ctx.addUInt8(f[.channel], &header)
        func optional(_ id: FieldID, _ valid: UInt16, signed: Bool) throws(DecodeError) {
            if flags & valid != 0 {
                if signed { try ctx.addInt8(id, &header) } else { try ctx.addUInt8(id, &header) }
            } else {
                try header.skip(1)
            }
        }
        try optional(f[.signal], 0x0002, signed: true)
        try optional(f[.noise], 0x0004, signed: true)
        try optional(f[.offenses], 0x0020, signed: false)
        if flags & 0x0010 != 0 { try ctx.addUInt32(f[.referenceAddress], &header) } else { try header.skip(4) }
        let fs = header.offset
        try ctx.addUInt16(f[.flags], &header)
        let fr = fs..<header.offset
        for (field, mask) in Self.flagFields {
            ctx.addFlag(f[field], UInt64(flags), mask: mask, fr, source: header.source)
        }
        ctx.addBits(f[.pduType], UInt64(flags), mask: 0x0380, fr, source: header.source)
        ctx.addBits(f[.phy], UInt64(flags), mask: 0xC000, fr, source: header.source)
        ctx.tree.close()

        var info = LinkLayerInfo()
        info.channel = Self.channelIndex(rf: rf)
        if flags & 0x0400 != 0 { info.crc = flags & 0x0800 != 0 ? .valid : .invalid }
        switch (flags >> 7) & 0x7 {
        case 1: info.auxiliary = true
        case 2, 4: info.sender = .central
        case 3, 5: info.sender = .peripheral
        default: break
        }
        info.decrypted = flags & 0x0008 != 0
        info.badMIC = flags & 0x1000 != 0 && flags & 0x2000 == 0
        // Decrypted, MIC checked and valid; a PDU type that gives the direction (2 and 3 data, 4
        // and 5 connected isochronous: central, then peripheral) set to the sender's.
        var marked = flags | 0x3008
        let type = (marked >> 7) & 0x7
        if (2...5).contains(type) {
            marked = marked & ~0x0380 | (type & ~1) << 7
            info.peripheralMarkBits = 0x0080
        }
        info.decryptedMark = ByteMark(at: start + 8, UInt8(marked & 0xFF), UInt8(marked >> 8))
        info.phy = UInt8((flags >> 14) & 0x3)
        handOn(info, next, &r, &ctx)
    }

    /// The channel index of RF channel `rf` (2402 + 2 × rf MHz): 37, 38 and 39 are the
    /// advertising channels at 2402, 2426 and 2480 MHz; the data channels fill the rest in order.
    static func channelIndex(rf: UInt8) -> UInt8? {
        switch rf {
        case 0: 37
        case 12: 38
        case 39: 39
        case 1...11: rf - 1
        case 13...38: rf - 2
        default: nil
        }
    }
}

/// pcap link types 251 and 147: the packet alone.
struct BareLinkLayer: Dissector {
    let next: Handoff<UInt8>

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        handOn(ctx.packet.linkLayer ?? LinkLayerInfo(), next, &r, &ctx)
    }
}

/// pcap link type 192: the PPI header and its fields, then the packet of the link type the
/// header names (`StandardTables.linkType` again).
struct PPIHeader: Dissector {
    let f: Fields<PPIField>
    /// The wrapped link type's header.
    let next: Handoff<UInt16>
    /// The PPI field Ubertooth writes for LE packets.
    static let btleFieldType: UInt16 = 30006

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        let length = Int(r.peekUInt8(at: 2) ?? 0) | Int(r.peekUInt8(at: 3) ?? 0) << 8
        ctx.tree.open(f.layer, .none, start..<(start + min(max(length, 8), r.remaining)), source: r.source)
        try ctx.addUInt8(f[.version], &r)
        try ctx.addUInt8(f[.flags], &r)
        try ctx.addUInt16(f[.length], &r)
        let dlt = try ctx.addUInt32(f[.dlt], &r)
        guard length >= 8 else {
            throw DecodeError(.malformed, offset: start + 2, "header length \(length) is below 8")
        }
        var fields = try r.readSlice(length - 8)
        while !fields.isAtEnd {
            let type = try ctx.addUInt16(f[.fieldType], &fields)
            let size = try ctx.addUInt16(f[.fieldLength], &fields)
            var data = try fields.readSlice(Int(size))
            if type == Self.btleFieldType && size >= 12 {
                try ctx.addUInt8(f[.btleVersion], &data)
                let mhz = try ctx.addUInt16(f[.btleChannel], &data)
                var info = LinkLayerInfo()
                if mhz >= 2402, mhz <= 2480, mhz % 2 == 0 {
                    info.channel = RFHeader.channelIndex(rf: UInt8((mhz - 2402) / 2))
                }
                ctx.packet.linkLayer = info
                try ctx.addUInt8(f[.btleClockHigh], &data)
                try ctx.addUInt32(f[.btleClock], &data)
                try ctx.addInt8(f[.rssiMax], &data)
                try ctx.addInt8(f[.rssiMin], &data)
                try ctx.addInt8(f[.rssiAverage], &data)
                try ctx.addUInt8(f[.rssiCount], &data)
            }
            if !data.isAtEnd { ctx.addRest(f[.fieldData], &data) }
        }
        ctx.tree.close()
        guard dlt != 192, dlt <= 0xFFFF else {
            throw DecodeError(.malformed, offset: start + 4, "PPI cannot wrap link type \(dlt)")
        }
        ctx.handOff(next, UInt16(dlt), &r)
    }
}
