import BLEInspectCore

/// The signalling channels: CID 0x0005 on LE links, CID 0x0001 on BR/EDR links.
///
/// Decodes every command, and learns dynamic channels from the connection requests and
/// responses (LE credit based, enhanced credit based, BR/EDR), credit indications,
/// reconfigurations and disconnections.
struct SignallingDissector: Dissector {
    let f: Fields<L2CAPField>
    let coc: Fields<CoCField>
    /// True for the LE signalling channel (one command per PDU).
    let le: Bool

    /// The most commands decoded from one signalling PDU.
    static let maximumCommands = 256

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        var count = 0
        if reader.isAtEnd {
            context.expert(.warning, "Empty signalling PDU", reader.offset..<reader.offset, source: reader.source)
            context.setInfo(le ? "LE signalling (empty)" : "Signalling (empty)")
            return
        }
        while !reader.isAtEnd {
            if count == Self.maximumCommands {
                context.expert(
                    .warning,
                    "Limit reached: more than \(Self.maximumCommands) commands in one PDU: the rest are not decoded",
                    reader.offset..<(reader.offset + reader.remaining),
                    source: reader.source
                )
                context.addRest(f[.cmdData], &reader)
                return
            }
            if le && count == 1 {
                context.expert(
                    .warning,
                    "An LE signalling PDU carries one command; more bytes follow it",
                    reader.offset..<(reader.offset + reader.remaining),
                    source: reader.source
                )
            }
            try command(&reader, &context, first: count == 0)
            count += 1
        }
    }

    /// Decodes one command. A command whose data is bad gets a malformed note; the next one is
    /// still decoded.
    private func command(_ reader: inout ByteReader, _ context: inout DissectionContext, first: Bool)
        throws(DecodeError)
    {
        let start = reader.offset
        let source = reader.source
        let savedDepth = context.tree.depth
        let commandIndex = context.tree.nextIndex
        let code = reader.peekUInt8() ?? 0
        let name = L2CAPNames.commandName(code)
        context.tree.open(f[.command], text: name, start..<(start + min(reader.remaining, 4)), source: source)
        _ = try context.addUInt8(f[.cmdCode], &reader)
        let ident = try context.addUInt8(f[.cmdIdent], &reader)
        let length = try context.addUInt16(f[.cmdLength], &reader)
        var body: ByteReader
        var short = false
        if reader.remaining >= Int(length) {
            body = try reader.readSlice(Int(length))
        } else {
            short = true
            body = reader.readRest()
        }
        context.tree.setEnd(ofNode: commandIndex, to: body.offset + body.remaining)
        if first {
            context.setInfo(name)
        } else {
            context.appendInfo(name)
        }
        if short {
            context.expert(
                .warning,
                "Command length \(length) runs past the PDU (\(body.remaining) bytes left)",
                start..<(body.offset + body.remaining),
                source: source
            )
        }
        if le && !Self.allowedOnLE(code) {
            context.expert(
                .note,
                "\(name) is not a command of the LE signalling channel",
                start..<(start + 1),
                source: source
            )
        } else if !le && !Self.allowedOnBREDR(code) {
            context.expert(
                .note,
                "\(name) is not a command of the BR/EDR signalling channel",
                start..<(start + 1),
                source: source
            )
        }
        do {
            try decode(code, ident, &body, &context)
            if !body.isAtEnd {
                context.expert(
                    .warning,
                    "\(body.remaining) unexpected byte\(body.remaining == 1 ? "" : "s") after the command",
                    body.offset..<(body.offset + body.remaining),
                    source: source
                )
                context.addRest(f[.cmdData], &body)
            }
        } catch {
            context.tree.restoreDepth(savedDepth + 1)
            context.malformed(error, body)
        }
        context.tree.restoreDepth(savedDepth)
    }

    static func allowedOnLE(_ code: UInt8) -> Bool {
        switch code {
        case 0x01, 0x06, 0x07, 0x12...0x1A: true
        default: false
        }
    }

    static func allowedOnBREDR(_ code: UInt8) -> Bool {
        switch code {
        case 0x01...0x11, 0x17...0x1A: true
        default: false
        }
    }

    private func decode(
        _ code: UInt8,
        _ ident: UInt8,
        _ r: inout ByteReader,
        _ context: inout DissectionContext
    ) throws(DecodeError) {
        switch code {
        case 0x01: try commandReject(&r, &context)
        case 0x02: try connectionRequest(ident, &r, &context)
        case 0x03: try connectionResponse(ident, &r, &context)
        case 0x04: try configureRequest(&r, &context)
        case 0x05: try configureResponse(&r, &context)
        case 0x06: try disconnection(request: true, &r, &context)
        case 0x07: try disconnection(request: false, &r, &context)
        case 0x08, 0x09: context.addRest(f[.data], &r)
        case 0x0A:
            let type = try context.addUInt16(f[.infoType], &r)
            context.appendInfoDetail(L2CAPNames.infoType.lookup(UInt64(type)) ?? Format.hex16(type))
        case 0x0B: try informationResponse(&r, &context)
        case 0x12:
            let lo = try context.addUInt16(f[.minInterval], &r)
            let hi = try context.addUInt16(f[.maxInterval], &r)
            let latency = try context.addUInt16(f[.slaveLatency], &r)
            let timeout = try context.addUInt16(f[.timeoutMultiplier], &r)
            context.appendInfoDetail("interval \(lo)-\(hi), latency \(latency), timeout \(timeout)")
        case 0x13:
            let result = try context.addUInt16(f[.moveResult], &r)
            context.appendInfoDetail(L2CAPNames.name(L2CAPNames.parameterUpdateResult, result))
        case 0x14: try leCreditRequest(ident, &r, &context)
        case 0x15: try leCreditResponse(ident, &r, &context)
        case 0x16: try flowControlCredit(&r, &context)
        case 0x17: try enhancedRequest(ident, &r, &context)
        case 0x18: try enhancedResponse(ident, &r, &context)
        case 0x19: try reconfigureRequest(ident, &r, &context)
        case 0x1A: try reconfigureResponse(ident, &r, &context)
        default:
            if !(0x0C...0x11).contains(code) {
                context.expert(
                    .warning,
                    "Unknown command code \(Format.hex8(code))",
                    r.offset..<(r.offset + r.remaining),
                    source: r.source
                )
            }
            context.addRest(f[.cmdData], &r)
        }
    }

    // MARK: - Common commands

    private func commandReject(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let reason = try context.addUInt16(f[.rejReason], &r)
        switch reason {
        case 0x0001: _ = try context.addUInt16(f[.sigMTU], &r)
        case 0x0002:
            _ = try context.addUInt16(f[.dcid], &r)
            _ = try context.addUInt16(f[.scid], &r)
        default: context.addRest(f[.data], &r)
        }
        context.appendInfoDetail(L2CAPNames.rejectReason.lookup(UInt64(reason)) ?? "reason " + Format.hex16(reason))
    }

    private func disconnection(
        request: Bool,
        _ r: inout ByteReader,
        _ context: inout DissectionContext
    ) throws(DecodeError) {
        let start = r.offset
        let dcid = try context.addUInt16(f[.dcid], &r)
        let scid = try context.addUInt16(f[.scid], &r)
        context.appendInfoDetail("DCID \(Format.hex16(dcid)), SCID \(Format.hex16(scid))")
        let state = context.l2capState
        let connection = context.l2capConnection
        let sender = Side(context.direction)
        // The DCID is the receiver's endpoint in a request, the responder's (the sender's) in a response.
        let found =
            request
            ? state.receiving(connection, cid: dcid, sender: sender)
            : state.owning(connection, cid: dcid, sender: sender)
        guard let (channel, _) = found else { return }
        let range = start..<r.offset
        context.tree.add(f[.psm], .unsigned(UInt64(channel.psm)), range, source: r.source)
        context.tree.add(f[.connectIn], .unsigned(UInt64(channel.connectFrame)), range, source: r.source)
        guard !request else { return }
        let other = channel.local.cid == dcid ? channel.peer.cid : channel.local.cid
        if other != scid {
            context.expert(
                .note,
                "SCID \(Format.hex16(scid)) is not the other end of channel \(channel.number) (\(Format.hex16(other)))",
                range,
                source: r.source
            )
        }
        for (endpoint, side) in [(channel.local, Side.local), (channel.peer, Side.peer)] where endpoint.sduActive {
            context.expert(
                .note,
                "Channel closed with an SDU to \(side.label) incomplete: \(endpoint.sduReceived) of \(endpoint.sduExpected) bytes",
                range,
                source: r.source
            )
        }
        state.remove(channel)
        context.tree.open(coc.layer, .none, range, source: r.source)
        context.tree.add(coc[.channel], .unsigned(UInt64(channel.number)), range, source: r.source)
        context.tree.close()
    }

    // MARK: - BR/EDR

    private func connectionRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let psm = try context.addUInt16(f[.psm], &r)
        let scid = try context.addUInt16(f[.scid], &r)
        context.appendInfoDetail("PSM \(Format.hex16(psm)), SCID \(Format.hex16(scid))")
        remember(
            PendingRequest(
                connection: context.l2capConnection,
                ident: ident,
                kind: .bredr,
                side: Side(context.direction),
                psm: psm,
                cids: [scid],
                mtu: 0,
                mps: 0,
                credits: 0,
                frame: context.frameNumber
            ),
            &context,
            r
        )
    }

    private func connectionResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let start = r.offset
        let dcid = try context.addUInt16(f[.dcid], &r)
        let scid = try context.addUInt16(f[.scid], &r)
        let result = try context.addUInt16(f[.result], &r)
        _ = try context.addUInt16(f[.status], &r)
        context.appendInfoDetail(
            "DCID \(Format.hex16(dcid)), SCID \(Format.hex16(scid)), \(L2CAPNames.name(L2CAPNames.connectionResult, result))"
        )
        let state = context.l2capState
        let connection = context.l2capConnection
        let responder = Side(context.direction)
        guard
            let request = state.takePending(
                connection,
                ident: ident,
                kind: .bredr,
                responder: responder,
                keep: result == 1
            )
        else { return }
        guard result == 0, request.cids.first == scid else { return }
        let requester = Self.requesterSide(request.side, responder)
        let requesterEnd = Endpoint(cid: scid, mtu: 0, mps: 0, credits: 0)
        let responderEnd = Endpoint(cid: dcid, mtu: 0, mps: 0, credits: 0)
        open(
            request,
            mode: .bredr,
            requester: requester,
            requesterEnd,
            responderEnd,
            &context,
            start..<r.offset,
            r.source
        )
    }

    private func configureRequest(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let dcid = try context.addUInt16(f[.dcid], &r)
        try flags(&r, &context)
        context.appendInfoDetail("DCID \(Format.hex16(dcid))")
        let mode = try options(&r, &context)
        // The DCID is the receiver's endpoint.
        if let mode,
            let (channel, _) = context.l2capState.receiving(
                context.l2capConnection,
                cid: dcid,
                sender: Side(context.direction)
            )
        {
            channel.bredrMode = mode
        }
    }

    private func configureResponse(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let scid = try context.addUInt16(f[.scid], &r)
        try flags(&r, &context)
        let result = try context.addUInt16(f[.confResult], &r)
        context.appendInfoDetail(
            "SCID \(Format.hex16(scid)), \(L2CAPNames.configResult.lookup(UInt64(result)) ?? Format.hex16(result))"
        )
        let mode = try options(&r, &context)
        // The SCID of a configuration response is the receiver's endpoint (the requester's).
        if result == 0, let mode,
            let (channel, _) = context.l2capState.receiving(
                context.l2capConnection,
                cid: scid,
                sender: Side(context.direction)
            )
        {
            channel.bredrMode = mode
        }
    }

    private func flags(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        let v = try r.readUInt16()
        let range = start..<r.offset
        context.tree.add(f[.flagsReserved], .unsigned(UInt64(v & 0xFFFE) >> 1), range, source: r.source)
        context.tree.add(f[.flagsContinuation], .boolean(v & 1 != 0), range, source: r.source)
    }

    /// Decodes configuration options; returns the mode of a Retransmission and Flow Control option.
    private func options(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) -> UInt8? {
        var mode: UInt8?
        var count = 0
        while !r.isAtEnd {
            count += 1
            guard count <= Self.maximumCommands else {
                context.expert(.warning, "Too many options", r.offset..<(r.offset + r.remaining), source: r.source)
                context.addRest(f[.data], &r)
                break
            }
            let start = r.offset
            let index = context.tree.nextIndex
            context.tree.open(f[.confParamOption], .none, start..<(start + min(2, r.remaining)), source: r.source)
            let type = try context.addUInt8(f[.optionType], &r)
            let length = try context.addUInt8(f[.optionLength], &r)
            var o = try r.readSlice(Int(length))
            context.tree.setEnd(ofNode: index, to: r.offset)
            switch type & 0x7F {
            case 0x01 where length == 2: _ = try context.addUInt16(f[.optionMTU], &o)
            case 0x02 where length == 2: _ = try context.addUInt16(f[.optionFlushTimeout], &o)
            case 0x04 where length == 9:
                mode = try context.addUInt8(f[.retransmissionMode], &o)
                _ = try context.addUInt8(f[.txWindow], &o)
                _ = try context.addUInt8(f[.maxTransmit], &o)
                _ = try context.addUInt16(f[.retransmitTimeout], &o)
                _ = try context.addUInt16(f[.monitorTimeout], &o)
                _ = try context.addUInt16(f[.mps], &o)
            case 0x05 where length == 1: _ = try context.addUInt8(f[.optionFCS], &o)
            case 0x07 where length == 2: _ = try context.addUInt16(f[.optionWindow], &o)
            case 0x01, 0x02, 0x04, 0x05, 0x07:
                context.expert(
                    .warning,
                    "Option length \(length) is wrong for this option",
                    start..<r.offset,
                    source: r.source
                )
                context.addRest(f[.data], &o)
            default: context.addRest(f[.data], &o)
            }
            context.tree.close()
        }
        return mode
    }

    private func informationResponse(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let type = try context.addUInt16(f[.infoType], &r)
        let result = try context.addUInt16(f[.infoResult], &r)
        context.appendInfoDetail(
            (L2CAPNames.infoType.lookup(UInt64(type)) ?? Format.hex16(type)) + ", "
                + (L2CAPNames.infoResult.lookup(UInt64(result)) ?? Format.hex16(result))
        )
        guard result == 0 else {
            context.addRest(f[.data], &r)
            return
        }
        switch type {
        case 0x0001: _ = try context.addUInt16(f[.infoMTU], &r)
        case 0x0002:
            let start = r.offset
            let v = try context.addUInt32(f[.infoExtFeatures], &r)
            let bits: [L2CAPField] = [
                .infoFlowControl, .infoRetransmission, .infoBidirQoS, .infoEnhRetransmission, .infoStreaming,
                .infoFCS, .infoFlowSpec, .infoFixedChan, .infoWindow, .infoUnicast,
            ]
            for (i, b) in bits.enumerated() {
                context.tree.add(f[b], .boolean(v & (1 << UInt32(i)) != 0), start..<r.offset, source: r.source)
            }
        case 0x0003:
            let start = r.offset
            let v = try r.readUInt64()
            let range = start..<r.offset
            context.tree.add(f[.infoFixedChans], .unsigned(v), range, source: r.source)
            let bits: [(L2CAPField, UInt64)] = [
                (.infoFixedChansNull, 0x1), (.infoFixedChansSignal, 0x2), (.infoFixedChansConnless, 0x4),
                (.infoFixedChansAMPMan, 0x8), (.infoFixedChansAMPTest, 0x8000_0000_0000_0000),
            ]
            for (b, mask) in bits { context.tree.add(f[b], .boolean(v & mask != 0), range, source: r.source) }
        default: context.addRest(f[.data], &r)
        }
    }

    // MARK: - Credit-based channels

    private func leCreditRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let start = r.offset
        let psm = try context.addUInt16(f[.lePSM], &r)
        let scid = try context.addUInt16(f[.scid], &r)
        let mtu = try context.addUInt16(f[.optionMTU], &r)
        let mps = try context.addUInt16(f[.mps], &r)
        let credits = try context.addUInt16(f[.initialCredits], &r)
        context.appendInfoDetail(
            "PSM \(Format.hex16(psm)), SCID \(Format.hex16(scid)), MTU \(mtu), MPS \(mps), credits \(credits)"
        )
        checkLimits(mtu: mtu, mps: mps, minimum: 23, &context, start..<r.offset, r.source)
        if !(0x0040...0x007F).contains(scid) {
            context.expert(
                .warning,
                "SCID \(Format.hex16(scid)) is outside the LE dynamic range 0x0040-0x007F",
                start..<r.offset,
                source: r.source
            )
        }
        remember(
            PendingRequest(
                connection: context.l2capConnection,
                ident: ident,
                kind: .leCredit,
                side: Side(context.direction),
                psm: psm,
                cids: [scid],
                mtu: mtu,
                mps: mps,
                credits: credits,
                frame: context.frameNumber
            ),
            &context,
            r
        )
    }

    private func leCreditResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let start = r.offset
        let dcid = try context.addUInt16(f[.dcid], &r)
        let mtu = try context.addUInt16(f[.optionMTU], &r)
        let mps = try context.addUInt16(f[.mps], &r)
        let credits = try context.addUInt16(f[.initialCredits], &r)
        let result = try context.addUInt16(f[.leResult], &r)
        context.appendInfoDetail(
            "DCID \(Format.hex16(dcid)), MTU \(mtu), MPS \(mps), credits \(credits), "
                + L2CAPNames.name(L2CAPNames.leResult, result)
        )
        let range = start..<r.offset
        let responder = Side(context.direction)
        guard
            let request = context.l2capState.takePending(
                context.l2capConnection,
                ident: ident,
                kind: .leCredit,
                responder: responder
            )
        else {
            if result == 0 {
                context.expert(
                    .note,
                    "No LE Credit Based Connection Request with identifier \(ident) was seen: channel not followed",
                    range,
                    source: r.source
                )
            }
            return
        }
        guard result == 0, let scid = request.cids.first else { return }
        checkLimits(mtu: mtu, mps: mps, minimum: 23, &context, range, r.source)
        let requester = Self.requesterSide(request.side, responder)
        let requesterEnd = Endpoint(cid: scid, mtu: request.mtu, mps: request.mps, credits: Int(request.credits))
        let responderEnd = Endpoint(cid: dcid, mtu: mtu, mps: mps, credits: Int(credits))
        open(request, mode: .leCredit, requester: requester, requesterEnd, responderEnd, &context, range, r.source)
    }

    private func flowControlCredit(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        let cid = try context.addUInt16(f[.cid], &r)
        let credits = try context.addUInt16(f[.credits], &r)
        if context.wantsInfo {
            // " (CID 0x0040, +5)", written as bytes.
            context.tree.appendInfo(" (CID ")
            context.tree.appendInfoHex(UInt64(cid), digits: 4)
            context.tree.appendInfo(", +")
            context.tree.appendInfoDecimal(credits)
            context.tree.appendInfo(")")
        }
        let range = start..<r.offset
        let sender = Side(context.direction)
        let state = context.l2capState
        // The CID is the sender's own endpoint: the credits let the other side send to it.
        guard let (channel, side) = state.owning(context.l2capConnection, cid: cid, sender: sender) else {
            context.expert(
                .warning,
                "LE Flow Control Credit for unknown channel \(Format.hex16(cid)) on this connection",
                range,
                source: r.source
            )
            return
        }
        if credits == 0 {
            context.expert(.note, "A credit packet that grants no credits", range, source: r.source)
        }
        let grantee = side.other
        let before: Int
        let sum: Int
        let waitedFrame: Int
        let waitedSince: Timestamp?
        switch side {
        case .peer:
            (before, sum, waitedFrame, waitedSince) = Self.grant(&channel.peer, credits)
        default:
            (before, sum, waitedFrame, waitedSince) = Self.grant(&channel.local, credits)
        }
        if sum > 65535 {
            context.expert(
                .warning,
                "Credit count of \(grantee.label) would be \(sum), over 65535: a protocol error (the receiver should disconnect)",
                range,
                source: r.source
            )
        }
        if before == 0, credits > 0, waitedFrame > 0 {
            let now = context.timestamp
            // Built only when expert text is wanted.
            func wait() -> String {
                guard let since = waitedSince else { return "" }
                return " (" + Format.milliseconds(Self.nanoseconds(from: since, to: now)) + ")"
            }
            context.expert(
                .note,
                "Unblocks \(grantee.label), out of credits since frame \(waitedFrame)\(wait())",
                range,
                source: r.source
            )
        }
        emitChannel(channel, sender: side, &context, range, r.source)
        let now = side == .local ? channel.local.credits : channel.peer.credits
        if context.wantsInfo {
            if context.tree.infoCount != 0 { context.tree.appendInfo(", ") }
            context.tree.appendInfo("credits now ")
            context.tree.appendInfoDecimal(now)
        }
    }

    /// Adds `credits` to the balance of the sender towards `e`; returns the balance before, the
    /// unclamped sum, and when that sender ran out.
    private static func grant(_ e: inout Endpoint, _ credits: UInt16) -> (Int, Int, Int, Timestamp?) {
        let before = e.credits
        let sum = before + Int(credits)
        e.credits = min(sum, 65535)
        let waited = (e.outOfCreditsFrame, e.outOfCreditsTime)
        if credits > 0 {
            e.outOfCreditsFrame = 0
            e.outOfCreditsTime = nil
        }
        return (before, sum, waited.0, waited.1)
    }

    static func nanoseconds(from a: Timestamp, to b: Timestamp) -> Int64 {
        let (ds, o1) = b.seconds.subtractingReportingOverflow(a.seconds)
        let (scaled, o2) = ds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, o3) = scaled.addingReportingOverflow(Int64(b.nanoseconds) - Int64(a.nanoseconds))
        return o1 || o2 || o3 ? 0 : sum
    }

    private func enhancedRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let start = r.offset
        let psm = try context.addUInt16(f[.lePSM], &r)
        let mtu = try context.addUInt16(f[.optionMTU], &r)
        let mps = try context.addUInt16(f[.mps], &r)
        let credits = try context.addUInt16(f[.initialCredits], &r)
        let cids = try cidList(&r, f[.scid], &context)
        context.appendInfoDetail(
            "PSM \(Format.hex16(psm)), MTU \(mtu), MPS \(mps), credits \(credits), SCIDs "
                + cids.map(Format.hex16).joined(separator: " ")
        )
        checkLimits(mtu: mtu, mps: mps, minimum: 64, &context, start..<r.offset, r.source)
        remember(
            PendingRequest(
                connection: context.l2capConnection,
                ident: ident,
                kind: .enhancedCredit,
                side: Side(context.direction),
                psm: psm,
                cids: cids,
                mtu: mtu,
                mps: mps,
                credits: credits,
                frame: context.frameNumber
            ),
            &context,
            r
        )
    }

    private func enhancedResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let start = r.offset
        let mtu = try context.addUInt16(f[.optionMTU], &r)
        let mps = try context.addUInt16(f[.mps], &r)
        let credits = try context.addUInt16(f[.initialCredits], &r)
        let result = try context.addUInt16(coc[.ecfcResult], &r)
        let dcids = try cidList(&r, f[.dcid], &context)
        context.appendInfoDetail(
            "MTU \(mtu), MPS \(mps), credits \(credits), DCIDs " + dcids.map(Format.hex16).joined(separator: " ")
                + ", " + L2CAPNames.name(L2CAPNames.ecfcResult, result)
        )
        let range = start..<r.offset
        let responder = Side(context.direction)
        let pendingResult = (0x000D...0x000F).contains(result)
        guard
            let request = context.l2capState.takePending(
                context.l2capConnection,
                ident: ident,
                kind: .enhancedCredit,
                responder: responder,
                keep: pendingResult
            )
        else {
            if dcids.contains(where: { $0 != 0 }) {
                context.expert(
                    .note,
                    "No Enhanced Credit Based Connection Request with identifier \(ident) was seen: channels not followed",
                    range,
                    source: r.source
                )
            }
            return
        }
        guard !pendingResult else { return }
        if dcids.count != request.cids.count {
            context.expert(
                .warning,
                "The response lists \(dcids.count) CIDs, the request \(request.cids.count)",
                range,
                source: r.source
            )
        }
        let requester = Self.requesterSide(request.side, responder)
        for (scid, dcid) in zip(request.cids, dcids) where dcid != 0 {
            let requesterEnd = Endpoint(cid: scid, mtu: request.mtu, mps: request.mps, credits: Int(request.credits))
            let responderEnd = Endpoint(cid: dcid, mtu: mtu, mps: mps, credits: Int(credits))
            open(
                request,
                mode: .enhancedCredit,
                requester: requester,
                requesterEnd,
                responderEnd,
                &context,
                range,
                r.source
            )
        }
    }

    private func reconfigureRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let mtu = try context.addUInt16(f[.optionMTU], &r)
        let mps = try context.addUInt16(f[.mps], &r)
        let cids = try cidList(&r, f[.dcid], &context)
        context.appendInfoDetail("MTU \(mtu), MPS \(mps), CIDs " + cids.map(Format.hex16).joined(separator: " "))
        remember(
            PendingRequest(
                connection: context.l2capConnection,
                ident: ident,
                kind: .reconfigure,
                side: Side(context.direction),
                psm: 0,
                cids: cids,
                mtu: mtu,
                mps: mps,
                credits: 0,
                frame: context.frameNumber
            ),
            &context,
            r
        )
    }

    private func reconfigureResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let result = try context.addUInt16(coc[.reconfResult], &r)
        context.appendInfoDetail(L2CAPNames.name(L2CAPNames.reconfigureResult, result))
        let state = context.l2capState
        let connection = context.l2capConnection
        let responder = Side(context.direction)
        guard let request = state.takePending(connection, ident: ident, kind: .reconfigure, responder: responder),
            result == 0
        else { return }
        let requester = Self.requesterSide(request.side, responder)
        for cid in request.cids {
            // The listed CIDs are the requester's own endpoints, whose receive limits change.
            guard let (channel, side) = state.owning(connection, cid: cid, sender: requester) else { continue }
            if side == .local {
                channel.local.mtu = request.mtu
                channel.local.mps = request.mps
            } else {
                channel.peer.mtu = request.mtu
                channel.peer.mps = request.mps
            }
        }
    }

    /// Reads the 1 to 5 CIDs at the end of an enhanced credit-based command.
    private func cidList(
        _ r: inout ByteReader,
        _ field: FieldID,
        _ context: inout DissectionContext
    ) throws(DecodeError) -> [UInt16] {
        guard r.remaining % 2 == 0 else {
            throw DecodeError(.malformed, offset: r.offset, "the CID list has an odd number of bytes (\(r.remaining))")
        }
        let count = r.remaining / 2
        if count == 0 || count > 5 {
            context.expert(
                .warning,
                "\(count) CIDs: a credit-based command lists 1 to 5",
                r.offset..<(r.offset + r.remaining),
                source: r.source
            )
        }
        var cids: [UInt16] = []
        cids.reserveCapacity(min(count, 5))
        while !r.isAtEnd {
            let cid = try context.addUInt16(field, &r)
            if cids.count < 5 { cids.append(cid) }
        }
        return cids
    }

    // MARK: - Channel bookkeeping

    private func checkLimits(
        mtu: UInt16,
        mps: UInt16,
        minimum: UInt16,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        if mtu < minimum {
            context.expert(.warning, "MTU \(mtu) is below the minimum of \(minimum)", range, source: source)
        }
        if mps < minimum || mps > 65533 {
            context.expert(.warning, "MPS \(mps) is outside \(minimum)-65533", range, source: source)
        }
    }

    private func remember(_ request: PendingRequest, _ context: inout DissectionContext, _ r: ByteReader) {
        if let dropped = context.l2capState.addPending(request) {
            context.expert(
                .note,
                "Limit reached: too many unanswered signalling requests (\(L2CAPState.maximumPending)): the one from frame \(dropped.frame) is forgotten",
                r.offset..<r.offset,
                source: r.source
            )
        }
    }

    /// The requester's side: the one the request came from, else the opposite of the responder,
    /// else (direction unknown) the local host.
    static func requesterSide(_ requestSide: Side, _ responder: Side) -> Side {
        if requestSide != .unknown { return requestSide }
        if responder != .unknown { return responder.other }
        return .local
    }

    private func open(
        _ request: PendingRequest,
        mode: ChannelMode,
        requester: Side,
        _ requesterEnd: Endpoint,
        _ responderEnd: Endpoint,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        let local = requester == .local ? requesterEnd : responderEnd
        let peer = requester == .local ? responderEnd : requesterEnd
        let state = context.l2capState
        switch state.add(
            connection: request.connection,
            psm: request.psm,
            mode: mode,
            connectFrame: request.frame,
            initiator: requester,
            local: local,
            peer: peer
        )
        {
        case .tableFull:
            context.expert(
                .warning,
                "Limit reached: channel table full (\(L2CAPState.maximumChannels) channels): channel \(Format.hex16(local.cid))/\(Format.hex16(peer.cid)) not followed",
                range,
                source: source
            )
        case .added(let channel, let replaced):
            for old in replaced {
                context.expert(
                    .note,
                    "Channel \(old.number) used these CIDs and was never closed: forgotten",
                    range,
                    source: source
                )
            }
            emitChannel(channel, sender: nil, &context, range, source)
        }
    }

    /// Adds the `coc` group with a channel's identity and credit balances.
    private func emitChannel(
        _ channel: Channel,
        sender: Side?,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        context.tree.open(coc.layer, .none, range, source: source)
        context.tree.add(coc[.channel], .unsigned(UInt64(channel.number)), range, source: source)
        if let sender { context.tree.add(coc[.sender], .unsigned(UInt64(sender.rawValue)), range, source: source) }
        context.tree.add(coc[.mode], .unsigned(UInt64(channel.mode.rawValue)), range, source: source)
        context.tree.add(coc[.initiator], .unsigned(UInt64(channel.initiator.rawValue)), range, source: source)
        context.tree.add(f[.psm], .unsigned(UInt64(channel.psm)), range, source: source)
        context.tree.add(coc[.localCID], .unsigned(UInt64(channel.local.cid)), range, source: source)
        context.tree.add(coc[.peerCID], .unsigned(UInt64(channel.peer.cid)), range, source: source)
        if channel.mode.isCreditBased {
            context.tree.add(coc[.txCredits], .unsigned(UInt64(channel.peer.credits)), range, source: source)
            context.tree.add(coc[.rxCredits], .unsigned(UInt64(channel.local.credits)), range, source: source)
        }
        context.tree.close()
    }
}

extension DissectionContext {
    /// The L2CAP module's state for this capture.
    var l2capState: L2CAPState { state.module(L2CAPState.self) { L2CAPState() } }

    /// The connection of the current PDU (a placeholder when the lower layer gave none).
    var l2capConnection: ConnectionKey {
        packet.connection ?? ConnectionKey(controller: controller, handle: 0xFFFF)
    }

    /// Adds " (detail)" to the last command's name on the info line.
    mutating func appendInfoDetail(_ text: @autoclosure () -> String) {
        if wantsInfo {
            tree.appendInfo(" (")
            tree.appendInfo(text())
            tree.appendInfo(")")
        }
    }
}
