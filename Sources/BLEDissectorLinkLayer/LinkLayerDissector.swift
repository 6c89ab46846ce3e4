import BLEInspectCore

/// One LE link-layer packet: access address, header, PDU and CRC. Advertising PDUs are decoded
/// here (their AdvData through `StandardTables.advertisingData`); data-channel PDUs are followed
/// per connection, their L2CAP fragments put together and handed to `StandardTables.l2cap`, and
/// their control PDUs decoded by `LLControlDissector`.
struct LinkLayerDissector: Dissector {
    let f: Fields<LinkLayerField>
    let control: LLControlDissector
    /// L2CAP PDUs reassembled from LL fragments, and advertising data.
    let l2cap: Handoff<UInt8>
    let advertisingData: Handoff<UInt8>
    /// The extended header's flag bits and their masks, made once.
    static let extendedFlags: [(LinkLayerField, UInt64)] = [
        .flagAdvA, .flagTargetA, .flagCTEInfo, .flagADI, .flagAuxPtr, .flagSyncInfo, .flagTxPower, .flagReserved,
    ].map { ($0, $0.descriptor.bitmask) }

    /// What is known of the packet once its header is read.
    struct Packet {
        var info: LinkLayerInfo
        var crcOK: Bool { info.crc != .invalid }
        var secondary: Bool {
            if info.auxiliary { return true }
            if let c = info.channel { return c < 37 }
            return false
        }
    }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        var packet = Packet(info: ctx.packet.linkLayer ?? LinkLayerInfo())
        let start = r.offset
        ctx.tree.open(f.layer, .none, start..<(start + r.remaining), source: r.source)
        let accessAddress = try ctx.addUInt32(f[.accessAddress], &r)
        if let channel = packet.info.channel {
            ctx.tree.add(f[.channelIndex], .unsigned(UInt64(channel)), start..<start, source: r.source)
        }
        // On the LE Coded PHY a coding indicator comes first (outside the CRC).
        if packet.info.phy == 2 {
            let cs = r.offset
            let ci = try r.readUInt8()
            ctx.addBits(f[.codingIndicator], UInt64(ci), mask: 0x03, cs..<r.offset, source: r.source)
        }
        // The PDU is the header and its length of payload; the CRC follows.
        guard r.remaining >= 2, let length = r.peekUInt8(at: 1) else {
            throw DecodeError(.truncated, offset: r.offset, "no packet header")
        }
        let advertising = accessAddress == advertisingAccessAddress
        let cp = !advertising && (r.peekUInt8() ?? 0) & 0x20 != 0
        let pduLength = 2 + (cp ? 1 : 0) + Int(length)
        let pduStart = r.offset
        // Every sniffer format ends the packet with its CRC. A length field that claims more
        // than the packet holds (an attack, or damage) is believed only as far as the bytes go.
        let available = r.remaining >= 5 ? r.remaining - 3 : r.remaining
        let overstated = available < pduLength
        if !overstated {
            checkCRC(&packet, r, pduLength: pduLength, advertising: advertising, accessAddress, &ctx)
        }
        var pdu = try r.readSlice(min(pduLength, available))
        var l2cap: ByteReader? = nil
        if advertising {
            try advertisingPDU(&pdu, &packet, complete: !overstated, &ctx)
        } else {
            l2cap = try dataPDU(&pdu, &packet, accessAddress, &ctx)
        }
        if overstated {
            ctx.malformed(
                DecodeError(
                    .malformed,
                    offset: pduStart,
                    "the header says \(length) bytes of payload, the packet has \(max(0, available - pduLength + Int(length)))"
                ),
                ByteReader([], source: r.source)
            )
        }
        if r.remaining >= 3 {
            let cs = r.offset
            let raw = try r.readUInt24()
            ctx.tree.add(f[.crc], .unsigned(UInt64(LinkLayerCRC.reversed24(raw))), cs..<r.offset, source: r.source)
            if packet.info.crc == .invalid {
                ctx.expert(
                    .error,
                    "Bad CRC: the packet may be damaged; its payload is not passed on",
                    cs..<r.offset,
                    source: r.source
                )
            }
        } else {
            ctx.expert(.warning, "No CRC: the packet ends early", r.offset..<r.offset, source: r.source)
        }
        if !r.isAtEnd { ctx.addRest(ctx.core[.data], &r) }
        ctx.tree.close()
        // The L2CAP layer follows the link layer (it does not nest in it).
        if var l2cap {
            ctx.handOff(self.l2cap, 0, &l2cap)
            // The summary the layers above set keeps the mark of a damaged packet.
            if overstated && ctx.wantsInfo && !ctx.tree.info.hasSuffix("[Malformed]") {
                ctx.tree.appendInfo(" [Malformed]")
            }
        }
    }

    /// Checks the CRC when the sniffer did not and the CRC init is known (always, on advertising
    /// channels), and records the result.
    private func checkCRC(
        _ packet: inout Packet,
        _ r: ByteReader,
        pduLength: Int,
        advertising: Bool,
        _ accessAddress: UInt32,
        _ ctx: inout DissectionContext
    ) {
        if packet.info.crc == .unchecked,
            let initial = advertising ? 0x55_5555 : LinkLayerState.of(ctx).connections[accessAddress]?.crcInit
        {
            let bytes = r.remainingSlice
            let pdu = bytes.prefix(pduLength)
            let sent = bytes.dropFirst(pduLength).prefix(3)
            let computed = LinkLayerCRC.compute(pdu, initial: initial)
            var raw: UInt32 = 0
            for (i, b) in sent.enumerated() { raw |= UInt32(b) << UInt32(8 * i) }
            packet.info.crc = computed == raw ? .valid : .invalid
        }
        if packet.info.crc != .unchecked {
            ctx.tree.add(f[.crcValid], .boolean(packet.info.crc == .valid), r.offset..<r.offset, source: r.source)
        }
    }

    // MARK: - Advertising channels

    private func advertisingPDU(
        _ r: inout ByteReader,
        _ packet: inout Packet,
        complete: Bool,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let hs = r.offset
        let header = try r.readUInt16()
        let hr = hs..<r.offset
        ctx.tree.add(f[.advHeader], .unsigned(UInt64(header)), hr, source: r.source)
        let type = UInt8(header & 0x0F)
        ctx.addBits(f[.pduType], UInt64(header), mask: 0x0F, hr, source: r.source)
        if type == 0 || type == 5 || type == 7 {
            ctx.addFlag(f[.chSel], UInt64(header), mask: 0x20, hr, source: r.source)
        }
        ctx.addFlag(f[.txAdd], UInt64(header), mask: 0x40, hr, source: r.source)
        if type == 1 || type == 3 || type == 5 {
            ctx.addFlag(f[.rxAdd], UInt64(header), mask: 0x80, hr, source: r.source)
        }
        ctx.tree.add(f[.advLength], .unsigned(UInt64(header >> 8)), hs + 1..<hs + 2, source: r.source)
        let name = pduName(type, &r, packet)
        ctx.tree.add(f[.pduName], text: name, hr, source: r.source)
        ctx.setInfo(name)
        switch type {
        case 0, 2, 6:
            let a = try ctx.addAddress(f[.advertisingAddress], &r)
            ctx.appendInfo(a.description)
            ctx.packet.advertiser = a
            advertisingData(&r, &ctx)
        case 1:
            let a = try ctx.addAddress(f[.advertisingAddress], &r)
            try ctx.addAddress(f[.targetAddress], &r)
            ctx.appendInfo(a.description)
        case 3:
            try ctx.addAddress(f[.scanningAddress], &r)
            let a = try ctx.addAddress(f[.advertisingAddress], &r)
            ctx.appendInfo(a.description)
        case 4:
            let a = try ctx.addAddress(f[.advertisingAddress], &r)
            ctx.appendInfo(a.description)
            ctx.packet.advertiser = a
            advertisingData(&r, &ctx)
        case 5:
            try connectRequest(&r, header: header, packet, &ctx)
        case 7, 8:
            try extendedPayload(&r, &ctx)
        default:
            ctx.expert(.warning, "Reserved advertising PDU type \(type)", hr, source: r.source)
            if !r.isAtEnd { ctx.addRest(ctx.core[.data], &r) }
        }
        let left = r.remaining
        if complete { ctx.restAsData(.warning, "\(left) bytes beyond the \(name) PDU", &r) }
    }

    /// The PDU's name: by type, and for the types the secondary channels share, by channel and
    /// extended header.
    private func pduName(_ type: UInt8, _ r: inout ByteReader, _ packet: Packet) -> String {
        switch type {
        case 3: return packet.secondary ? "AUX_SCAN_REQ" : "SCAN_REQ"
        case 5: return packet.secondary ? "AUX_CONNECT_REQ" : "CONNECT_IND"
        case 7:
            guard packet.secondary else { return "ADV_EXT_IND" }
            // The nRF Sniffer says which; otherwise an AdvA means AUX_ADV_IND (or AUX_SCAN_RSP).
            let flags = (r.peekUInt8() ?? 0) & 0x3F > 0 ? r.peekUInt8(at: 1) ?? 0 : 0
            return flags & 0x01 != 0 ? "AUX_ADV_IND" : "AUX_CHAIN_IND"
        default:
            return LinkLayerNames.advertisingPDUTypes.lookup(UInt64(type)) ?? "Reserved (\(type))"
        }
    }

    private func advertisingData(_ r: inout ByteReader, _ ctx: inout DissectionContext) {
        guard !r.isAtEnd else { return }
        var data = r.readRest()
        ctx.handOff(advertisingData, 0, &data)
    }

    /// CONNECT_IND and AUX_CONNECT_REQ: the addresses and the connection's parameters. A good one
    /// starts following the connection on its access address.
    private func connectRequest(
        _ r: inout ByteReader,
        header: UInt16,
        _ packet: Packet,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let initiator = try ctx.addAddress(f[.initiatorAddress], &r)
        let advertiser = try ctx.addAddress(f[.advertisingAddress], &r)
        ctx.appendInfo("\(initiator) → \(advertiser)")
        let ls = r.offset
        ctx.tree.open(f[.llData], .none, ls..<(ls + min(22, r.remaining)), source: r.source)
        defer { ctx.tree.close() }
        let aa = try ctx.addUInt32(f[.llAccessAddress], &r)
        let crcInit = try ctx.addUInt24(f[.crcInit], &r)
        try ctx.addUInt8(f[.windowSize], &r)
        try ctx.addUInt16(f[.windowOffset], &r)
        let interval = try ctx.addUInt16(f[.interval], &r)
        try ctx.addUInt16(f[.latency], &r)
        try ctx.addUInt16(f[.timeout], &r)
        try ctx.addBytes(f[.channelMap], &r, 5)
        let hs = r.offset
        let hopSCA = try r.readUInt8()
        ctx.addBits(f[.hop], UInt64(hopSCA), mask: 0x1F, hs..<r.offset, source: r.source)
        ctx.addBits(f[.sca], UInt64(hopSCA), mask: 0xE0, hs..<r.offset, source: r.source)
        ctx.appendInfo("access address 0x" + String(aa, radix: 16) + ", interval \(Double(interval) * 1.25) ms")
        guard packet.crcOK else { return }
        let state = LinkLayerState.of(ctx)
        let connection = state.open(aa, frame: ctx.frameNumber, &ctx, at: ls..<r.offset, source: r.source)
        connection.crcInit = crcInit
        connection.central = initiator
        connection.peripheral = advertiser
        connection.centralRandom = header & 0x40 != 0
        connection.peripheralRandom = header & 0x80 != 0
        connection.connectFrame = ctx.frameNumber
        connection.interval = interval
        ctx.state.openConnection(
            connection.key,
            ConnectionInfo(
                peer: advertiser,
                peerAddressType: header & 0x80 != 0 ? 1 : 0,
                role: 0,
                openedInFrame: ctx.frameNumber
            )
        )
        ctx.tree.add(f[.connection], .unsigned(UInt64(connection.number)), ls..<ls, source: r.source)
    }

    /// The Common Extended Advertising Payload (ADV_EXT_IND, the AUX_ PDUs, AUX_CONNECT_RSP).
    private func extendedPayload(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let es = r.offset
        let first = try r.readUInt8()
        let length = Int(first & 0x3F)
        ctx.tree.open(f[.extHeader], .none, es..<(es + min(1 + length, r.remaining + 1)), source: r.source)
        ctx.addBits(f[.extLength], UInt64(first), mask: 0x3F, es..<r.offset, source: r.source)
        ctx.addBits(f[.extMode], UInt64(first), mask: 0xC0, es..<r.offset, source: r.source)
        // Fields that fit are shown even when the length claims more (as in a damaged packet).
        var h = try r.readSlice(min(length, r.remaining))
        defer { ctx.tree.close() }
        if h.remaining < length {
            ctx.malformed(
                DecodeError(.truncated, offset: es, "extended header length \(length), \(h.remaining) bytes left"),
                h
            )
        }
        if length > 0 {
            let fs = h.offset
            let flags = try ctx.addUInt8(f[.extFlags], &h)
            let fr = fs..<h.offset
            for (field, mask) in Self.extendedFlags {
                ctx.addFlag(f[field], UInt64(flags), mask: mask, fr, source: h.source)
            }
            if flags & 0x01 != 0 {
                let a = try ctx.addAddress(f[.advertisingAddress], &h)
                ctx.appendInfo(a.description)
            }
            if flags & 0x02 != 0 { try ctx.addAddress(f[.targetAddress], &h) }
            if flags & 0x04 != 0 { try ctx.addUInt8(f[.cteInfo], &h) }
            if flags & 0x08 != 0 {
                let s = h.offset
                let adi = try ctx.addUInt16(f[.adi], &h)
                ctx.addBits(f[.did], UInt64(adi), mask: 0x0FFF, s..<h.offset, source: h.source)
                ctx.addBits(f[.sid], UInt64(adi), mask: 0xF000, s..<h.offset, source: h.source)
            }
            if flags & 0x10 != 0 {
                let s = h.offset
                ctx.tree.open(f[.auxPointer], .none, s..<min(s + 3, s + h.remaining), source: h.source)
                let b0 = try h.readUInt8()
                ctx.addBits(f[.auxChannel], UInt64(b0), mask: 0x3F, s..<h.offset, source: h.source)
                ctx.addFlag(f[.auxClockAccuracy], UInt64(b0), mask: 0x40, s..<h.offset, source: h.source)
                ctx.addFlag(f[.auxOffsetUnits], UInt64(b0), mask: 0x80, s..<h.offset, source: h.source)
                let os = h.offset
                let word = try h.readUInt16()
                ctx.addBits(f[.auxOffset], UInt64(word), mask: 0x1FFF, os..<h.offset, source: h.source)
                ctx.addBits(f[.auxPHY], UInt64(word), mask: 0xE000, os..<h.offset, source: h.source)
                ctx.tree.close()
            }
            if flags & 0x20 != 0 { try syncInfo(&h, &ctx) }
            if flags & 0x40 != 0 { try ctx.addInt8(f[.txPower], &h) }
            if !h.isAtEnd { ctx.addRest(f[.acad], &h) }
        }
        advertisingData(&r, &ctx)
    }

    private func syncInfo(_ h: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let s = h.offset
        ctx.tree.open(f[.syncInfo], .none, s..<min(s + 18, s + h.remaining), source: h.source)
        defer { ctx.tree.close() }
        let word = try h.readUInt16()
        let wr = s..<h.offset
        ctx.addBits(f[.syncOffset], UInt64(word), mask: 0x1FFF, wr, source: h.source)
        ctx.addFlag(f[.syncOffsetUnits], UInt64(word), mask: 0x2000, wr, source: h.source)
        ctx.addFlag(f[.syncOffsetAdjust], UInt64(word), mask: 0x4000, wr, source: h.source)
        try ctx.addUInt16(f[.syncInterval], &h)
        let cs = h.offset
        let last = h.peekUInt8(at: 4)
        try ctx.addBytes(f[.syncChannelMap], &h, 5)
        if let last { ctx.addBits(f[.syncSCA], UInt64(last), mask: 0xE0, cs + 4..<cs + 5, source: h.source) }
        try ctx.addUInt32(f[.syncAccessAddress], &h)
        try ctx.addUInt24(f[.syncCRCInit], &h)
        try ctx.addUInt16(f[.syncEventCounter], &h)
    }
}
