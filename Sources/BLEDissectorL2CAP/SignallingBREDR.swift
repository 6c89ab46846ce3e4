import BLEInspectCore

/// The signalling commands of BR/EDR links, and the two that LE shares with them (Command Reject
/// and Disconnection): `SignallingCommands.table`'s decoders.
extension SignallingDissector {
    // MARK: - Common commands

    func commandReject(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
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

    func disconnection(
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

    func connectionRequest(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
        throws(DecodeError)
    {
        let psm = try context.addUInt16(f[.psm], &r)
        let scid = try context.addUInt16(f[.scid], &r)
        context.appendInfoDetail("PSM \(Format.hex16(psm)), SCID \(Format.hex16(scid))")
        remember(.bredr, ident: ident, psm: psm, cids: [scid], &context, r)
    }

    func connectionResponse(_ ident: UInt8, _ r: inout ByteReader, _ context: inout DissectionContext)
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
        // A pending result (1): the final response comes later.
        guard let (request, requester) = answeredRequest(.bredr, ident: ident, keep: result == 1, &context),
            result == 0, request.cids.first == scid
        else { return }
        // A BR/EDR request carries no limits or credits: its endpoint gets zeros, as the responder's.
        open(
            request,
            mode: .bredr,
            requester: requester,
            scid: scid,
            Endpoint(cid: dcid, mtu: 0, mps: 0, credits: 0),
            &context,
            start..<r.offset,
            r.source
        )
    }

    func configureRequest(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let dcid = try context.addUInt16(f[.dcid], &r)
        try flags(&r, &context)
        context.appendInfoDetail("DCID \(Format.hex16(dcid))")
        // The DCID is the receiver's endpoint.
        setMode(try options(&r, &context), receiver: dcid, &context)
    }

    func configureResponse(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let scid = try context.addUInt16(f[.scid], &r)
        try flags(&r, &context)
        let result = try context.addUInt16(f[.confResult], &r)
        context.appendInfoDetail(
            "SCID \(Format.hex16(scid)), \(L2CAPNames.configResult.lookup(UInt64(result)) ?? Format.hex16(result))"
        )
        let mode = try options(&r, &context)
        // The SCID of a configuration response is the receiver's endpoint (the requester's).
        if result == 0 { setMode(mode, receiver: scid, &context) }
    }

    /// Sets the mode (of a Retransmission and Flow Control option) of the channel whose receiving
    /// endpoint is `cid`, if it is known.
    private func setMode(_ mode: UInt8?, receiver cid: UInt16, _ context: inout DissectionContext) {
        guard let mode else { return }
        let sender = Side(context.direction)
        if let (channel, _) = context.l2capState.receiving(context.l2capConnection, cid: cid, sender: sender) {
            channel.bredrMode = mode
        }
    }

    func flags(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let start = r.offset
        let v = try r.readUInt16()
        let range = start..<r.offset
        context.tree.add(f[.flagsReserved], .unsigned(UInt64(v & 0xFFFE) >> 1), range, source: r.source)
        context.tree.add(f[.flagsContinuation], .boolean(v & 1 != 0), range, source: r.source)
    }

    /// Decodes configuration options; returns the mode of a Retransmission and Flow Control option.
    func options(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) -> UInt8? {
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

    func informationResponse(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
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
}
