import BLEInspectCore

extension LinkLayerDissector {
    /// A data-channel PDU: the header, then by LLID an L2CAP fragment or a control PDU, unless it
    /// was sent encrypted and is not decrypted, or is a retransmission, or its CRC is bad.
    func dataPDU(
        _ r: inout ByteReader,
        _ packet: inout Packet,
        _ accessAddress: UInt32,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) -> ByteReader? {
        let hs = r.offset
        let header = try r.readUInt16()
        let hr = hs..<(hs + 2)
        let llid = UInt8(header & 0x03)
        let length = Int(header >> 8)
        ctx.tree.open(f[.dataHeader], .none, hr, source: r.source)
        ctx.addBits(f[.llid], UInt64(header), mask: 0x03, hr, source: r.source)
        ctx.addBits(f[.nesn], UInt64(header), mask: 0x04, hr, source: r.source)
        ctx.addBits(f[.sn], UInt64(header), mask: 0x08, hr, source: r.source)
        ctx.addFlag(f[.md], UInt64(header), mask: 0x10, hr, source: r.source)
        ctx.addFlag(f[.cp], UInt64(header), mask: 0x20, hr, source: r.source)
        ctx.addBits(f[.dataRFU], UInt64(header), mask: 0xC0, hr, source: r.source)
        ctx.tree.add(f[.dataLength], .unsigned(UInt64(length)), hs + 1..<hs + 2, source: r.source)
        if header & 0x20 != 0 { try ctx.addUInt8(f[.dataCTEInfo], &r) }
        ctx.tree.close()

        let state = LinkLayerState.of(ctx)
        var connection = state.connections[accessAddress]
        if connection == nil && packet.crcOK {
            // Followed from the middle: the sniffer missed (or was not there for) the CONNECT_IND.
            let c = state.open(accessAddress, frame: ctx.frameNumber, &ctx, at: hr, source: r.source)
            ctx.state.openConnection(
                c.key,
                ConnectionInfo(peer: BDAddr(rawValue: 0), peerAddressType: 0, role: 0, openedInFrame: ctx.frameNumber)
            )
            ctx.expert(
                .note,
                "Connection start not captured: first packet on access address 0x\(String(accessAddress, radix: 16))",
                hr,
                source: r.source
            )
            connection = c
        }
        var sender = senderOf(&packet, connection, header: header, &ctx)
        if let connection {
            ctx.tree.add(f[.connection], .unsigned(UInt64(connection.number)), hr, source: r.source)
            if let a = connection.central { ctx.tree.add(f[.centralAddress], .address(a), hr, source: r.source) }
            if let a = connection.peripheral { ctx.tree.add(f[.peripheralAddress], .address(a), hr, source: r.source) }
            if let frame = connection.connectFrame {
                ctx.tree.add(f[.connectionParametersIn], .unsigned(UInt64(frame)), hr, source: r.source)
            }
            if packet.crcOK { connection.lastFrame = ctx.frameNumber }
        }
        // A MIC that verifies in the other direction settles the sender later (`decrypt`).
        let senderNode = ctx.tree.nextIndex
        let claimedSender = sender
        ctx.tree.add(f[.sender], .unsigned(UInt64(sender.rawValue)), hr, source: r.source)
        if packet.info.sender == .unknown && sender != .unknown {
            ctx.tree.add(f[.senderInferred], .boolean(true), hr, source: r.source)
        }
        switch sender {
        case .central: ctx.direction = .hostToController
        case .peripheral: ctx.direction = .controllerToHost
        case .unknown: break
        }
        if let connection, let index = sender.index, packet.crcOK {
            // The peer's NESN says whether it has the sender's previous packet.
            if let last = connection.lastPacket[1 - index], !last.acknowledged,
                last.sn != UInt8((header >> 2) & 1)
            {
                connection.lastPacket[1 - index]?.acknowledged = true
            }
        }
        var arrow = sender == .central ? "C→P " : sender == .peripheral ? "P→C " : ""

        if length == 0 {
            ctx.setInfo(arrow + (llid == 1 ? "Empty PDU" : "Empty PDU (LLID \(llid))"))
            return nil
        }
        // Encrypted, unless the sniffer decrypted it: the payload and its 4-byte MIC.
        // With a key, a PDU shorter than a MIC is not encrypted (the central's LL_PAUSE_ENC_RSP).
        let encrypted =
            !packet.info.decrypted
            && (packet.info.reportsEncryption
                ? packet.info.encrypted : packet.info.badMIC || (connection?.encrypted ?? false))
            && (length > 4 || connection?.encryption?.candidates.isEmpty ?? true)
        if !encrypted, packet.info.decrypted, length > 0, packet.crcOK, let connection, let index = sender.index {
            // Decrypted by the sniffer: it used a packet counter all the same, which a PDU the
            // sniffer leaves encrypted later (it lost the connection's counters) is decrypted with.
            connection.countDecryptedBySniffer(index: index, sn: UInt8((header >> 3) & 1))
        }
        if !encrypted, packet.info.reportsEncryption, !packet.info.decrypted, length > 4, packet.crcOK,
            let connection, connection.encrypted, connection.encryption?.verified == true,
            let plaintext = try decrypt(&r, header, connection, &sender, hr, crcOK: true, speculative: true, &ctx)
        {
            // A sniffer that lost the connection's counters or directions can mark an encrypted PDU
            // as sent in the clear; a MIC that verifies says otherwise.
            ctx.expert(
                .note,
                "The sniffer marked this PDU as not encrypted, but the connection is encrypted and the MIC verifies: decrypted",
                hr,
                source: r.source
            )
            r = plaintext
            arrow = sender == .central ? "C→P " : "P→C "
            if sender != claimedSender { ctx.tree.setValue(ofNode: senderNode, .unsigned(UInt64(sender.rawValue))) }
        } else if encrypted {
            // Decrypted with a key that fits, or shown as it was sent.
            guard let connection,
                let plaintext = try decrypt(&r, header, connection, &sender, hr, crcOK: packet.crcOK, &ctx)
            else {
                try showEncrypted(
                    &r,
                    llid: llid,
                    length: length,
                    arrow,
                    hr,
                    connection: connection,
                    crcOK: packet.crcOK,
                    &ctx
                )
                return nil
            }
            r = plaintext
            arrow = sender == .central ? "C→P " : "P→C "
            if sender != claimedSender { ctx.tree.setValue(ofNode: senderNode, .unsigned(UInt64(sender.rawValue))) }
        }
        if !packet.crcOK {
            ctx.setInfo(arrow + "PDU with a bad CRC")
            if llid == 3 && packet.crcOK == false {
                // Shown, but it changes nothing.
                ctx.run(control, &r)
            } else if !r.isAtEnd {
                ctx.addRest(ctx.core[.data], &r)
            }
            return nil
        }
        // What tells a retransmission: the sequence number and the payload's digest.
        let sent = LLSent(sn: UInt8((header >> 3) & 1), digest: Self.digest(r.remainingSlice), frame: ctx.frameNumber)
        if let connection, let index = sender.index, let previous = connection.lastPacket[index],
            !previous.acknowledged, previous.sn == sent.sn, previous.digest == sent.digest
        {
            ctx.tree.add(f[.retransmission], .boolean(true), hr, source: r.source)
            ctx.expert(.note, "Retransmission of frame \(previous.frame): not passed on again", hr, source: r.source)
            ctx.setInfo(arrow + "Retransmission of frame \(previous.frame)")
            if llid == 3 {
                // Shown again, but it changes nothing.
                if ctx.wantsInfo { ctx.tree.appendInfo(": ") }
                ctx.run(control, &r)
            } else {
                ctx.addRest(ctx.core[.data], &r)
            }
            return nil
        }
        if let connection, let index = sender.index { connection.lastPacket[index] = sent }
        switch llid {
        case 3:
            if let connection { follow(control: r, connection, sender, &ctx) }
            // The control dissector appends the PDU's name.
            ctx.setInfo(arrow)
            ctx.run(control, &r)
        case 1, 2:
            guard let connection, let index = sender.index else {
                ctx.setInfo(arrow + "L2CAP fragment (sender unknown)")
                ctx.addRest(ctx.core[.data], &r)
                return nil
            }
            ctx.packet.connection = connection.key
            let pdu = reassemble(start: llid == 2, &r, connection, index, arrow, &ctx)
            if let pdu { observeSMP(pdu, connection, index, &ctx) }
            return pdu
        default:
            ctx.setInfo(arrow + "Reserved LLID 0")
            ctx.expert(.warning, "Reserved LLID 0", hr, source: r.source)
            ctx.addRest(ctx.core[.data], &r)
        }
        return nil
    }

    /// Who sent the packet: the sniffer's word, else inferred from timing. Within a connection
    /// event the two sides take turns, the central first; an event starts after a gap longer
    /// than any packet takes.
    private func senderOf(
        _ packet: inout Packet,
        _ connection: LLConnection?,
        header: UInt16,
        _ ctx: inout DissectionContext
    ) -> LinkLayerInfo.Sender {
        let nanos = ctx.timestamp.seconds &* 1_000_000_000 &+ Int64(ctx.timestamp.nanoseconds)
        defer { connection?.lastNanos = nanos }
        if packet.info.sender != .unknown {
            connection?.lastSender = packet.info.sender
            return packet.info.sender
        }
        guard let connection else { return .unknown }
        var sender: LinkLayerInfo.Sender
        if let last = connection.lastNanos, nanos &- last < 3_000_000, nanos >= last,
            connection.lastSender != .unknown
        {
            sender = connection.lastSender == .central ? .peripheral : .central
        } else {
            sender = .central
        }
        // A sniffer misses packets, which breaks the turns. An L2CAP continuation belongs to a
        // side with a PDU under way: when only the other side has one, it is the other side's.
        if header & 0x03 == 1, header >> 8 != 0, packet.crcOK, let mine = sender.index,
            connection.partials[mine] == nil, connection.partials[1 - mine] != nil
        {
            sender = sender == .central ? .peripheral : .central
        }
        connection.lastSender = sender
        return sender
    }

    /// FNV-1a over the payload and its length.
    static func digest(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h
    }

    /// What a control PDU changes in the connection's state: encryption starting or pausing,
    /// the connection ending.
    private func follow(
        control r: ByteReader,
        _ connection: LLConnection,
        _ sender: LinkLayerInfo.Sender,
        _ ctx: inout DissectionContext
    ) {
        guard let opcode = r.peekUInt8() else { return }
        switch opcode {
        case 0x02:  // LL_TERMINATE_IND: the connection's upper-layer state goes
            LinkLayerState.of(ctx).forget(connection, ctx)
        case 0x03:  // LL_ENC_REQ: a new encryption session
            connection.encryption = LLEncryption(
                request: r,
                edits: ctx.registry.configuration[LinkLayerModule.decryptedEdits]
            )
        case 0x04:  // LL_ENC_RSP: the session's keys can be made
            startSession(r, connection, &ctx)
        case 0x05:  // LL_START_ENC_REQ: sent in the clear; everything after it is encrypted
            connection.encrypted = true
        case 0x0B:  // LL_PAUSE_ENC_RSP: the central's, sent in the clear, ends encryption
            if sender == .central { connection.encrypted = false }
        default:
            break
        }
    }

    /// Feeds one fragment to the sender's reassembly; returns the complete L2CAP PDU when there
    /// is one (in the packet's bytes, or in a new data source).
    private func reassemble(
        start: Bool,
        _ r: inout ByteReader,
        _ connection: LLConnection,
        _ index: Int,
        _ arrow: String,
        _ ctx: inout DissectionContext
    ) -> ByteReader? {
        let state = LinkLayerState.of(ctx)
        let range = r.offset..<(r.offset + r.remaining)
        let source = r.source
        let bytes = r.remainingSlice
        // A fragment is shown as data (a whole PDU is read out first), and kept or not in
        // `connection.partials`.
        defer { ctx.addRest(ctx.core[.data], &r) }
        func warn(_ message: @autoclosure () -> String) { ctx.expert(.warning, message(), range, source: source) }
        // The sender's PDU under way comes out of the table (and the byte count) until it is put back.
        let under = connection.partials[index]
        connection.partials[index] = nil
        state.buffered -= under?.bytes.count ?? 0
        if start {
            if let old = under {
                warn("Incomplete L2CAP PDU discarded (\(old.progress), started in frame \(old.startFrame))")
            }
            if let total = L2CAPFragments.expectedLength(bytes), bytes.count >= total {
                ctx.setInfo(arrow + "L2CAP")
                return r.readRest()
            }
            guard state.buffered + bytes.count <= LinkLayerState.maximumBuffered else {
                warn(
                    "Limit reached: \(LinkLayerState.maximumBuffered) bytes of incomplete L2CAP PDUs; fragment not kept"
                )
                return nil
            }
            let partial = L2CAPFragments(start: bytes, frame: ctx.frameNumber)
            connection.partials[index] = partial
            state.buffered += bytes.count
            ctx.setInfo(arrow + "L2CAP fragment (start, \(partial.progress))")
            return nil
        }
        guard var partial = under else {
            warn("L2CAP continuation fragment without a start fragment; discarded")
            ctx.setInfo(arrow + "L2CAP fragment (continuation, no start)")
            return nil
        }
        let size = partial.bytes.count + bytes.count
        guard size <= L2CAPFragments.maximumPDU, state.buffered + size <= LinkLayerState.maximumBuffered else {
            warn("Limit reached: the L2CAP PDU started in frame \(partial.startFrame) is too large; discarded")
            return nil
        }
        partial.append(bytes)
        guard partial.isComplete, let total = partial.expected else {
            ctx.setInfo(arrow + "L2CAP fragment (continuation, \(partial.progress))")
            state.buffered += partial.bytes.count
            connection.partials[index] = partial
            return nil
        }
        if partial.bytes.count > total {
            warn("LL fragments carry \(partial.bytes.count - total) bytes beyond the L2CAP length")
        }
        ctx.tree.add(f[.fragmentCount], .unsigned(UInt64(partial.fragments)), range, source: source)
        ctx.tree.add(f[.reassembledLength], .unsigned(UInt64(partial.bytes.count)), range, source: source)
        ctx.setInfo(arrow + "L2CAP, reassembled from \(partial.fragments) fragments")
        let src = ctx.tree.addSource(partial.bytes, name: "Reassembled L2CAP")
        return ByteReader(partial.bytes, source: src)
    }
}

extension LinkLayerInfo.Sender {
    /// 0 for the central, 1 for the peripheral.
    var index: Int? {
        switch self {
        case .central: 0
        case .peripheral: 1
        case .unknown: nil
        }
    }
}
