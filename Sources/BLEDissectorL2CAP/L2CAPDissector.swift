import BLEInspectCore

/// One complete L2CAP PDU (basic header: length, CID, payload), as reassembled from ACL data.
///
/// Fixed channels go on through `StandardTables.l2capCID` (the signalling channels 0x0001 and
/// 0x0005 are this module's own). Dynamic CIDs are looked up in the channel table learned from
/// signalling: K-frames of credit-based channels are counted against the sender's credits and
/// reassembled into SDUs, which go on through `StandardTables.l2capPSM`.
struct L2CAPDissector: Dissector {
    let f: Fields<L2CAPField>
    let coc: Fields<CoCField>
    /// Fixed channels by CID, and credit-based channels' SDUs by PSM.
    let fixed: Handoff<UInt16>
    let psm: Handoff<UInt16>

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let start = reader.offset
        let source = reader.source
        context.tree.open(f.layer, .none, start..<(start + reader.remaining), source: source)
        let length = try context.addUInt16(f[.length], &reader)
        let cid = try context.addUInt16(f[.cid], &reader)
        var payload: ByteReader
        var cut = false
        if reader.remaining >= Int(length) {
            payload = try reader.readSlice(Int(length))
            if !reader.isAtEnd {
                context.expert(
                    .warning,
                    "\(reader.remaining) bytes after the \(length)-byte L2CAP payload",
                    reader.offset..<(reader.offset + reader.remaining),
                    source: source
                )
            }
        } else {
            cut = true
            context.expert(
                .warning,
                "Length \(length) but only \(reader.remaining) payload bytes: PDU cut short",
                start..<(start + 2),
                source: source
            )
            payload = reader.readRest()
        }
        context.packet.cid = cid
        switch cid {
        case 0x0001, 0x0005:
            // Signalling: the commands are part of the L2CAP layer.
            context.handOff(fixed, cid, &payload)
            context.tree.close()
        case 0x0000:
            context.expert(.warning, "CID 0x0000 (null identifier) is not a valid destination", start..<(start + 4))
            context.addRest(f[.payload], &payload)
            context.setInfo("L2CAP CID 0x0000")
            context.tree.close()
        case 0x0002...0x003F:
            context.tree.close()
            context.setInfo("L2CAP CID ", hex16: cid)
            context.handOff(fixed, cid, &payload)
        default:
            try dynamic(cid, &payload, cut: cut, &context)
        }
    }

    // MARK: - Dynamic channels

    private func dynamic(
        _ cid: UInt16,
        _ payload: inout ByteReader,
        cut: Bool,
        _ context: inout DissectionContext
    ) throws(DecodeError) {
        let state = context.l2capState
        let sender = Side(context.direction)
        guard let (channel, receiver) = state.receiving(context.l2capConnection, cid: cid, sender: sender) else {
            let range = payload.offset..<(payload.offset + payload.remaining)
            context.addRest(f[.payload], &payload)
            context.expert(
                .warning,
                "No channel known for CID \(Format.hex16(cid)) on this connection (opened before the capture began, or its signalling is missing): shown as data",
                range,
                source: payload.source
            )
            context.setInfo("Data on unknown channel CID \(Format.hex16(cid)), \(range.count) bytes")
            context.tree.close()
            return
        }
        let here = payload.offset..<payload.offset
        context.tree.add(f[.connectIn], .unsigned(UInt64(channel.connectFrame)), here, source: payload.source)
        context.tree.add(f[.psm], .unsigned(UInt64(channel.psm)), here, source: payload.source)
        if channel.mode.isCreditBased {
            try kFrame(channel, receiver: receiver, cid: cid, &payload, cut: cut, &context)
        } else {
            bFrame(channel, cid: cid, &payload, &context)
        }
    }

    /// Data on a BR/EDR channel: basic-mode B-frames go to the PSM's dissector.
    private func bFrame(
        _ channel: Channel,
        cid: UInt16,
        _ payload: inout ByteReader,
        _ context: inout DissectionContext
    ) {
        context.setInfo("L2CAP CID \(Format.hex16(cid)) (PSM \(Format.hex16(channel.psm)))")
        if channel.bredrMode != 0 {
            context.expert(
                .note,
                "Channel in retransmission/flow-control mode \(channel.bredrMode): frames are not decoded",
                payload.offset..<(payload.offset + payload.remaining),
                source: payload.source
            )
            context.addRest(f[.payload], &payload)
            context.tree.close()
            return
        }
        guard context.registry.isBound(psm, channel.psm) else {
            context.addRest(f[.payload], &payload)
            context.tree.close()
            return
        }
        context.tree.close()
        context.packet.psm = channel.psm
        context.handOff(psm, channel.psm, &payload)
    }

    /// What one K-frame did to its channel.
    private struct KFrameResult {
        var noCredit = false
        var creditsLeft = 0
        var ranOut = false
        var sduIndex: UInt32 = 0
        var segment: UInt32 = 0
        var parts: UInt32 = 0
        var pending = 0
        var mtu: UInt16 = 0
        var mps: UInt16 = 0
        var sduLengthOverMTU: Int?
        var excess = 0
        var budgetRefused: L2CAPState.BudgetRefusal?
        var abandoned = false
        var completed: [UInt8]?
        var completedLength = 0
        var segments: UInt32 = 0
        var startFrame = 0
    }

    /// A K-frame of a credit-based channel, sent towards `receiver`.
    private func kFrame(
        _ channel: Channel,
        receiver: Side,
        cid: UInt16,
        _ payload: inout ByteReader,
        cut: Bool,
        _ context: inout DissectionContext
    ) throws(DecodeError) {
        let source = payload.source
        let frameStart = payload.offset
        let size = payload.remaining
        let senderSide = receiver.other
        let state = context.l2capState
        var sduLengthRange: Range<Int>?
        var sduLength = 0
        var result = KFrameResult()
        // The first K-frame of an SDU starts with the SDU length.
        let starts: Bool = receiver == .local ? !channel.local.sduActive : !channel.peer.sduActive
        if starts, size >= 2 {
            let s = payload.offset
            sduLength = Int(try payload.readUInt16())
            sduLengthRange = s..<payload.offset
        }
        let data = payload.remainingSlice
        let frame = context.frameNumber
        let time = context.timestamp
        func update(_ e: inout Endpoint) {
            result.mtu = e.mtu
            result.mps = e.mps
            if e.credits > 0 {
                e.credits -= 1
                if e.credits == 0 {
                    result.ranOut = true
                    e.outOfCreditsFrame = frame
                    e.outOfCreditsTime = time
                }
            } else {
                result.noCredit = true
            }
            result.creditsLeft = e.credits
            if starts {
                guard sduLengthRange != nil else { return }
                e.sduCount &+= 1
                e.sduActive = true
                e.sduExpected = sduLength
                e.sduReceived = 0
                e.sduSegments = 0
                e.sduStartFrame = frame
                e.sduFirstSize = size
                if sduLength > Int(e.mtu) { result.sduLengthOverMTU = sduLength }
                if let refusal = state.reserve(sduLength, on: channel.connection) {
                    e.sduCollecting = false
                    result.budgetRefused = refusal
                } else {
                    e.sduCollecting = true
                    // The buffer grows with the bytes that come, not with the stated length.
                    e.sdu.reserveCapacity(min(sduLength, data.count))
                }
            }
            e.sduSegments &+= 1
            result.sduIndex = e.sduCount
            result.segment = e.sduSegments
            result.startFrame = e.sduStartFrame
            let take = min(data.count, e.sduExpected - e.sduReceived)
            result.excess = data.count - take
            if e.sduCollecting { e.sdu.append(contentsOf: data.prefix(take)) }
            e.sduReceived += take
            result.pending = e.sduExpected - e.sduReceived
            result.parts = e.estimatedParts(e.sduSegments)
            if cut {
                result.abandoned = true
                state.release(&e, of: channel.connection)
            } else if e.sduReceived == e.sduExpected {
                result.parts = e.sduSegments
                result.segments = e.sduSegments
                result.completedLength = e.sduExpected
                if e.sduCollecting { result.completed = e.sdu }
                state.release(&e, of: channel.connection)
            }
        }
        if receiver == .local {
            update(&channel.local)
        } else {
            update(&channel.peer)
        }

        // Fields of the L2CAP layer.
        if let r = sduLengthRange {
            context.tree.add(f[.leSDULength], .unsigned(UInt64(sduLength)), r, source: source)
        }
        context.addRest(f[.payload], &payload)
        let whole = frameStart..<(frameStart + size)

        // The channel's state after this K-frame.
        context.tree.open(coc.layer, .none, whole, source: source)
        context.tree.add(coc[.channel], .unsigned(UInt64(channel.number)), whole, source: source)
        context.tree.add(coc[.sender], .unsigned(UInt64(senderSide.rawValue)), whole, source: source)
        context.tree.add(coc[.mtu], .unsigned(UInt64(result.mtu)), whole, source: source)
        context.tree.add(coc[.mps], .unsigned(UInt64(result.mps)), whole, source: source)
        context.tree.add(coc[.txCredits], .unsigned(UInt64(channel.peer.credits)), whole, source: source)
        context.tree.add(coc[.rxCredits], .unsigned(UInt64(channel.local.credits)), whole, source: source)
        if result.segment > 0 {
            context.tree.add(coc[.sduIndex], .unsigned(UInt64(result.sduIndex)), whole, source: source)
            context.tree.add(coc[.segment], .unsigned(UInt64(result.segment)), whole, source: source)
            context.tree.add(coc[.sduPending], .unsigned(UInt64(max(0, result.pending))), whole, source: source)
            context.tree.add(coc[.sduStart], .unsigned(UInt64(result.startFrame)), whole, source: source)
        }
        var sduSource = 0
        if let bytes = result.completed {
            sduSource = context.tree.addSource(bytes, name: "Reassembled SDU")
            let all = 0..<bytes.count
            context.tree.add(coc[.sdu], .bytes, all, source: sduSource)
            context.tree.add(coc[.sduLen], .unsigned(UInt64(bytes.count)), all, source: sduSource)
            context.tree.add(coc[.sduSegments], .unsigned(UInt64(result.segments)), all, source: sduSource)
        } else if result.segments > 0 {
            context.tree.add(coc[.sduLen], .unsigned(UInt64(result.completedLength)), whole, source: source)
            context.tree.add(coc[.sduSegments], .unsigned(UInt64(result.segments)), whole, source: source)
        }
        context.tree.close()

        // What went wrong, and why the channel may stall.
        if result.noCredit {
            context.expert(
                .warning,
                "\(senderSide.label.capitalizedFirst) sent a K-frame with no credits left (flow control violation: it must wait for credits)",
                whole,
                source: source
            )
        } else if result.ranOut {
            context.expert(
                .note,
                "\(senderSide.label.capitalizedFirst) has no credits left: it cannot send on this channel until \(receiver.label) grants more",
                whole,
                source: source
            )
        }
        if size > Int(result.mps) {
            context.expert(
                .warning,
                "K-frame payload of \(size) bytes exceeds the receiver's MPS of \(result.mps)",
                whole,
                source: source
            )
        }
        if let over = result.sduLengthOverMTU {
            context.expert(
                .warning,
                "SDU length \(over) exceeds the receiver's MTU of \(result.mtu)",
                sduLengthRange ?? whole,
                source: source
            )
        }
        if result.excess > 0 {
            context.expert(
                .warning,
                "K-frame carries \(result.excess) bytes beyond the SDU length: they are ignored",
                whole,
                source: source
            )
        }
        if let refusal = result.budgetRefused {
            let budget =
                switch refusal {
                case .total: "\(L2CAPState.reassemblyBudget) bytes in progress"
                case .connection: "\(L2CAPState.reassemblyBudgetPerConnection) bytes in progress on this connection"
                }
            context.expert(
                .note,
                "Limit reached: reassembly budget of \(budget) reached: this SDU is followed but not reassembled",
                whole,
                source: source
            )
        }
        if result.abandoned {
            context.expert(.warning, "K-frame cut short: its SDU is not reassembled", whole, source: source)
        }
        if starts && sduLengthRange == nil {
            context.setInfo("K-frame CID \(Format.hex16(cid)), too short for an SDU length")
            context.tree.close()
            throw DecodeError(.truncated, offset: frameStart, "the first K-frame of an SDU needs 2 bytes of SDU length")
        }
        if context.wantsInfo {
            // "K-frame CID 0x0040 SDU 3 part 1/2, credits left 5", written as bytes.
            context.tree.clearInfo()
            context.tree.appendInfo("K-frame CID ")
            context.tree.appendInfoHex(UInt64(cid), digits: 4)
            context.tree.appendInfo(" SDU ")
            context.tree.appendInfoDecimal(result.sduIndex)
            context.tree.appendInfo(" part ")
            context.tree.appendInfoDecimal(result.segment)
            context.tree.appendInfo("/")
            context.tree.appendInfoDecimal(result.parts)
            context.tree.appendInfo(", credits left ")
            context.tree.appendInfoDecimal(result.creditsLeft)
        }
        context.tree.close()

        // The reassembled SDU goes to the PSM's dissector.
        guard let bytes = result.completed else { return }
        context.appendInfo("SDU \(bytes.count) bytes (reassembled)")
        context.packet.psm = channel.psm
        guard !bytes.isEmpty, context.registry.isBound(psm, channel.psm)
        else { return }
        var sdu = ByteReader(bytes, source: sduSource)
        context.handOff(psm, channel.psm, &sdu)
    }
}

extension String {
    /// The text with its first letter in upper case.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
