import BLEInspectCore

/// The commands of credit-based channels (LE and enhanced), and the channel bookkeeping that
/// every connection-opening command shares: `SignallingCommands.table`'s decoders.
extension SignallingDissector {
    // MARK: - Credit-based channels

    func leCreditRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
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
        remember(.leCredit, ident: ident, psm: psm, cids: [scid], mtu: mtu, mps: mps, credits: credits, &context, r)
        notePublication(psm, &context, start..<(start + 2), r.source)
    }

    func leCreditResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
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
        guard let (request, requester) = answeredRequest(.leCredit, ident: ident, &context) else {
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
        let responderEnd = Endpoint(cid: dcid, mtu: mtu, mps: mps, credits: Int(credits))
        open(request, mode: .leCredit, requester: requester, scid: scid, responderEnd, &context, range, r.source)
    }

    func flowControlCredit(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
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
    static func grant(_ e: inout Endpoint, _ credits: UInt16) -> (Int, Int, Int, Timestamp?) {
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

    func enhancedRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
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
        remember(.enhancedCredit, ident: ident, psm: psm, cids: cids, mtu: mtu, mps: mps, credits: credits, &context, r)
        notePublication(psm, &context, start..<(start + 2), r.source)
    }

    // MARK: - Published PSMs

    /// Whether `side` is the capturing host; nil when the capture does not say.
    static func isLocal(_ side: Side) -> Bool? {
        switch side {
        case .local: true
        case .peer: false
        case .unknown: nil
        }
    }

    /// Names where the other side published the PSM a connection request asks for.
    func notePublication(_ psm: UInt16, _ context: inout DissectionContext, _ range: Range<Int>, _ source: Int) {
        let published = context.state.module(PublishedPSMs.self) { PublishedPSMs() }
        let requester = context.direction.sentByLocal
        guard let p = published.publication(of: psm, requestedByLocal: requester, on: context.l2capConnection)
        else { return }
        addPublication(p, &context, range, source)
        context.appendInfo("PSM \(p.via.text) in #\(p.frame)")
        context.forward?.record(.channelOnPSM, from: p.frame, to: context.frameNumber)
    }

    func addPublication(
        _ p: PublishedPSMs.Publication,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        context.tree.add(coc[.psmPublishedIn], .unsigned(UInt64(p.frame)), range, source: source)
        context.tree.add(coc[.psmPublishedVia], .unsigned(UInt64(p.via.rawValue)), range, source: source)
    }

    /// Records a credit-based channel that has just opened, with where its PSM was published, and
    /// notes the dual-role pattern when this channel completes one.
    func recordOpened(
        _ channel: Channel,
        _ request: PendingRequest,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        let published = context.state.module(PublishedPSMs.self) { PublishedPSMs() }
        let byLocal = Self.isLocal(channel.initiator)
        channel.publication = published.publication(of: channel.psm, requestedByLocal: byLocal, on: channel.connection)
        let opened = PublishedPSMs.OpenedChannel(
            channel: channel.number,
            psm: channel.psm,
            frame: request.frame,
            time: context.timestamp,
            connection: channel.connection,
            byLocal: byLocal,
            publication: channel.publication
        )
        guard let other = published.opened(opened) else { return }
        channel.dualRoleWith = other.channel
        func described(_ c: PublishedPSMs.OpenedChannel, _ number: UInt32) -> String {
            "channel \(number) (PSM \(Format.hex16(c.psm)), opened by the \(c.byLocal == true ? "local host" : "peer") "
                + "on connection \(Format.hex16(c.connection.handle)) in #\(c.frame))"
        }
        context.expert(
            .warning,
            "Dual-role channels: " + described(opened, channel.number) + " and " + described(other, other.channel)
                + " each use the PSM the other side published: one app is central and peripheral at once. "
                + "If each side writes only where it is the peripheral, each channel carries data one way (see conns)",
            range,
            source: source
        )
        context.appendInfo("dual-role channels: this and channel \(other.channel) (#\(other.frame))")
    }

    func enhancedResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
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
        let pendingResult = (0x000D...0x000F).contains(result)
        guard let (request, requester) = answeredRequest(.enhancedCredit, ident: ident, keep: pendingResult, &context)
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
        for (scid, dcid) in zip(request.cids, dcids) where dcid != 0 {
            let responderEnd = Endpoint(cid: dcid, mtu: mtu, mps: mps, credits: Int(credits))
            open(
                request,
                mode: .enhancedCredit,
                requester: requester,
                scid: scid,
                responderEnd,
                &context,
                range,
                r.source
            )
        }
    }

    func reconfigureRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let mtu = try context.addUInt16(f[.optionMTU], &r)
        let mps = try context.addUInt16(f[.mps], &r)
        let cids = try cidList(&r, f[.dcid], &context)
        context.appendInfoDetail("MTU \(mtu), MPS \(mps), CIDs " + cids.map(Format.hex16).joined(separator: " "))
        remember(.reconfigure, ident: ident, cids: cids, mtu: mtu, mps: mps, &context, r)
    }

    func reconfigureResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let result = try context.addUInt16(coc[.reconfResult], &r)
        context.appendInfoDetail(L2CAPNames.name(L2CAPNames.reconfigureResult, result))
        guard let (request, requester) = answeredRequest(.reconfigure, ident: ident, &context), result == 0 else {
            return
        }
        let state = context.l2capState
        let connection = context.l2capConnection
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
    func cidList(
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

    func checkLimits(
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

    /// Remembers a request of the current PDU until its response, which opens or changes channels.
    func remember(
        _ kind: PendingRequest.Kind,
        ident: UInt8,
        psm: UInt16 = 0,
        cids: [UInt16],
        mtu: UInt16 = 0,
        mps: UInt16 = 0,
        credits: UInt16 = 0,
        _ context: inout DissectionContext,
        _ r: ByteReader
    ) {
        let request = PendingRequest(
            connection: context.l2capConnection,
            ident: ident,
            kind: kind,
            side: Side(context.direction),
            psm: psm,
            cids: cids,
            mtu: mtu,
            mps: mps,
            credits: credits,
            frame: context.frameNumber
        )
        if let dropped = context.l2capState.addPending(request) {
            context.expert(
                .note,
                "Limit reached: too many unanswered signalling requests (\(L2CAPState.maximumPending)): the one from frame \(dropped.frame) is forgotten",
                r.offset..<r.offset,
                source: r.source
            )
        }
    }

    /// The request of `kind` with identifier `ident` that the current response answers (left
    /// pending when `keep`: the response says more will come), with the requester's side; nil
    /// when no such request was seen.
    func answeredRequest(
        _ kind: PendingRequest.Kind,
        ident: UInt8,
        keep: Bool = false,
        _ context: inout DissectionContext
    ) -> (request: PendingRequest, requester: Side)? {
        let responder = Side(context.direction)
        guard
            let request = context.l2capState.takePending(
                context.l2capConnection,
                ident: ident,
                kind: kind,
                responder: responder,
                keep: keep
            )
        else { return nil }
        return (request, Self.requesterSide(request.side, responder))
    }

    /// The requester's side: the one the request came from, else the opposite of the responder,
    /// else (direction unknown) the local host.
    static func requesterSide(_ requestSide: Side, _ responder: Side) -> Side {
        if requestSide != .unknown { return requestSide }
        if responder != .unknown { return responder.other }
        return .local
    }

    /// Opens the channel a response accepts: the requester's endpoint `scid` (with the limits and
    /// credits of the request) and the responder's `responderEnd`.
    func open(
        _ request: PendingRequest,
        mode: ChannelMode,
        requester: Side,
        scid: UInt16,
        _ responderEnd: Endpoint,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        let requesterEnd = request.endpoint(scid)
        let local = requester == .local ? requesterEnd : responderEnd
        let peer = requester == .local ? responderEnd : requesterEnd
        let state = context.l2capState
        let channel = Channel(
            connection: request.connection,
            psm: request.psm,
            mode: mode,
            connectFrame: request.frame,
            initiator: requester,
            local: local,
            peer: peer
        )
        switch state.add(channel) {
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
            if mode.isCreditBased { recordOpened(channel, request, &context, range, source) }
            emitChannel(channel, sender: nil, &context, range, source)
        }
    }

    /// Adds the `coc` group with a channel's identity and credit balances.
    func emitChannel(
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
        if sender == nil {
            if let p = channel.publication { addPublication(p, &context, range, source) }
            if let other = channel.dualRoleWith {
                context.tree.add(coc[.dualRoleWith], .unsigned(UInt64(other)), range, source: source)
            }
        }
        context.tree.close()
    }
}
