import BLEInspectCore

/// Decoders of LE Meta subevents.
enum HCILEEventDecoders {
    // swift-format-ignore
    static func bindings(_ f: HCIFieldIDs) -> [(UInt8, any Dissector)] {
        let e = f.evt
        let status = LayoutItem.u8(e[.status])
        let handle = LayoutItem.handle(e[.connectionHandle])
        func fixed(_ s: [LayoutItem]) -> any Dissector { LayoutParameters(s) }
        func custom(_ body: @escaping HCIDecoder.Body) -> any Dissector { HCIDecoder(f, body) }
        return [
            (0x01, custom { f, r, ctx throws(DecodeError) in try connectionComplete(f, &r, &ctx, enhanced: false, v2: false) }),
            (0x02, custom(advertisingReport)),
            (0x03, fixed([status, handle, .u16(e[.leConInterval]), .u16(e[.leConLatency]), .u16(e[.leSupvTimeout])])),
            (0x04, fixed([status, handle, .u64(e[.leFeatures])])),
            (0x05, fixed([handle, .bytes(e[.leRandomNumber], 8), .u16(e[.leEncryptedDiversifier])])),
            (0x06, fixed([handle, .u16(e[.leMinInterval]), .u16(e[.leMaxInterval]), .u16(e[.leConLatency]), .u16(e[.leSupvTimeout])])),
            (0x07, fixed([handle, .u16(e[.maxTxOctets]), .u16(e[.maxTxTime]), .u16(e[.maxRxOctets]), .u16(e[.maxRxTime])])),
            (0x08, fixed([status, .bytes(e[.leLocalP256PublicKey], 64)])),
            (0x09, fixed([status, .bytes(e[.dhkey], 32)])),
            (0x0A, custom { f, r, ctx throws(DecodeError) in try connectionComplete(f, &r, &ctx, enhanced: true, v2: false) }),
            (0x0B, fixed(LayoutItem.groups(count: e[.leNumReports], e[.report], [.u8(e[.leAdvtsEventType]), .u8(e[.lePeerAddressType]), .address(e[.bdAddr]), .u8(e[.leDirectAddressType]), .address(e[.directBDAddr]), .i8(e[.rssi])]))),
            (0x0C, fixed([status, handle, .u8(e[.leTxPhy]), .u8(e[.leRxPhy])])),
            (0x0D, custom(extendedAdvertisingReport)),
            (0x0E, fixed([status, .u16(e[.syncHandle]), .u8(e[.advertisingSID]), .u8(e[.lePeerAddressType]), .address(e[.bdAddr]), .u8(e[.advPHY]), .u16(e[.periodicAdvertisingInterval]), .u8(e[.advClockAccuracy])])),
            (0x0F, custom { f, r, ctx throws(DecodeError) in try periodicAdvertisingReport(f, &r, &ctx, v2: false) }),
            (0x10, fixed([.u16(e[.syncHandle])])),
            (0x11, fixed([])),
            (0x12, fixed([status, .u8(e[.advHandle]), handle, .u8(e[.numComplExtAdvEvents])])),
            (0x13, fixed([.u8(e[.advHandle]), .u8(e[.lePeerAddressType]), .address(e[.bdAddr])])),
            (0x14, fixed([handle, .u8(e[.channelSelectionAlgorithm])])),
            (0x19, fixed([status, handle, .u24(e[.cigSyncDelay]), .u24(e[.cisSyncDelay]), .u24(e[.transportLatencyMtoS]), .u24(e[.transportLatencyStoM]), .u8(e[.phyMtoS]), .u8(e[.phyStoM]), .u8(e[.nse]), .u8(e[.bnMtoS]), .u8(e[.bnStoM]), .u8(e[.ftMtoS]), .u8(e[.ftStoM]), .u16(e[.maxPDUMtoS]), .u16(e[.maxPDUStoM]), .u16(e[.isoInterval])])),
            (0x1A, fixed([handle, .handle(e[.cisHandle]), .u8(e[.cigID]), .u8(e[.cisID])])),
            (0x23, fixed([status, handle, .u16(e[.subrateFactor]), .u16(e[.leConLatency]), .u16(e[.continuationNumber]), .u16(e[.leSupvTimeout])])),
            (0x24, fixed([status, .u16(e[.syncHandle]), .u8(e[.advertisingSID]), .u8(e[.lePeerAddressType]), .address(e[.bdAddr]), .u8(e[.advPHY]), .u16(e[.periodicAdvertisingInterval]), .u8(e[.advClockAccuracy]), .u8(e[.numSubevents]), .u8(e[.subeventInterval]), .u8(e[.responseSlotDelay]), .u8(e[.responseSlotSpacing])])),
            (0x25, custom { f, r, ctx throws(DecodeError) in try periodicAdvertisingReport(f, &r, &ctx, v2: true) }),
            (0x29, custom { f, r, ctx throws(DecodeError) in try connectionComplete(f, &r, &ctx, enhanced: true, v2: true) }),
        ]
    }

    /// LE Connection Complete, LE Enhanced Connection Complete v1 and v2: a successful one opens
    /// the connection.
    static func connectionComplete(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext,
        enhanced: Bool,
        v2: Bool
    ) throws(DecodeError) {
        let e = f.evt
        let status = try ctx.addUInt8(e[.status], &r)
        let hs = r.offset
        let h = try ctx.handle(e[.connectionHandle], &r)
        let role = try ctx.addUInt8(e[.role], &r)
        let peerType = try ctx.addUInt8(e[.lePeerAddressType], &r)
        let peer = try ctx.addAddress(e[.bdAddr], &r)
        if enhanced {
            try ctx.addAddress(e[.leLocalRPA], &r)
            try ctx.addAddress(e[.lePeerRPA], &r)
        }
        try ctx.addUInt16(e[.leConInterval], &r)
        try ctx.addUInt16(e[.leConLatency], &r)
        try ctx.addUInt16(e[.leSupvTimeout], &r)
        try ctx.addUInt8(e[.leMasterClockAccuracy], &r)
        if v2 {
            try ctx.addUInt8(e[.advHandle], &r)
            try ctx.addUInt16(e[.syncHandle], &r)
        }
        if status == 0 {
            HCIConnections.opened(
                &ctx,
                handle: h,
                peer: peer,
                peerAddressType: peerType,
                role: role,
                at: hs..<(hs + 2),
                source: r.source
            )
        } else {
            ctx.appendInfo(HCIEventNames.errorName(status))
        }
    }

    /// Opens the group node of report `index` (1-based); returns the node's index for `finish`.
    static func openReport(_ f: HCIFieldIDs, _ index: Int, _ r: ByteReader, _ ctx: inout DissectionContext) -> Int {
        let node = ctx.tree.nextIndex
        ctx.tree.open(f.evt[.report], .unsigned(UInt64(index)), r.offset..<r.offset, source: r.source)
        return node
    }

    static func finishReport(_ node: Int, _ r: ByteReader, _ ctx: inout DissectionContext) {
        ctx.tree.close()
        ctx.tree.setEnd(ofNode: node, to: r.offset)
    }

    /// Advertising data of a report, handed to the AD dissectors.
    static func advertisingData(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext)
        throws(DecodeError) -> Int
    {
        let length = try ctx.addUInt8(f.evt[.dataLength], &r)
        var data = try r.readSlice(Int(length))
        ctx.handOff(f.next.advertisingData, 0, &data)
        return Int(length)
    }

    /// LE Advertising Report: every report in its own group node.
    static func advertisingReport(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext)
        throws(DecodeError)
    {
        let e = f.evt
        let n = try ctx.addUInt8(e[.leNumReports], &r)
        for i in 0..<Int(n) {
            let node = openReport(f, i + 1, r, &ctx)
            try ctx.addUInt8(e[.leAdvtsEventType], &r)
            try ctx.addUInt8(e[.lePeerAddressType], &r)
            ctx.packet.advertiser = try ctx.addAddress(e[.bdAddr], &r)
            _ = try advertisingData(f, &r, &ctx)
            try ctx.addInt8(e[.rssi], &r)
            finishReport(node, r, &ctx)
        }
    }

    /// LE Extended Advertising Report: every report in its own group node, the event type's
    /// bits decoded. Complete data goes to the AD dissectors; the pieces of data that the
    /// controller splits over several reports are shown as bytes.
    static func extendedAdvertisingReport(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let e = f.evt
        let n = try ctx.addUInt8(e[.leNumReports], &r)
        for i in 0..<Int(n) {
            let node = openReport(f, i + 1, r, &ctx)
            let s = r.offset
            let type = try r.readUInt16()
            let range = s..<r.offset
            let v = UInt64(type)
            ctx.tree.open(e[.leExtAdvtsEventType], .unsigned(v), range, source: r.source)
            ctx.tree.add(e[.extConnectable], .unsigned(v & 1), range, source: r.source)
            ctx.tree.add(e[.extScannable], .unsigned(v >> 1 & 1), range, source: r.source)
            ctx.tree.add(e[.extDirected], .unsigned(v >> 2 & 1), range, source: r.source)
            ctx.tree.add(e[.extScanResponse], .unsigned(v >> 3 & 1), range, source: r.source)
            ctx.tree.add(e[.extLegacy], .unsigned(v >> 4 & 1), range, source: r.source)
            ctx.tree.add(e[.extDataStatus], .unsigned(v >> 5 & 3), range, source: r.source)
            ctx.tree.close()
            try ctx.addUInt8(e[.lePeerAddressType], &r)
            ctx.packet.advertiser = try ctx.addAddress(e[.bdAddr], &r)
            try ctx.addUInt8(e[.primaryPHY], &r)
            try ctx.addUInt8(e[.secondaryPHY], &r)
            try ctx.addUInt8(e[.advertisingSID], &r)
            try ctx.addInt8(e[.txPower], &r)
            try ctx.addInt8(e[.rssi], &r)
            try ctx.addUInt16(e[.periodicAdvertisingInterval], &r)
            try ctx.addUInt8(e[.leDirectAddressType], &r)
            try ctx.addAddress(e[.directBDAddr], &r)
            try dataBlock(f, complete: (type >> 5) & 0x03 == 0, &r, &ctx)
            finishReport(node, r, &ctx)
        }
    }

    /// Data of an extended or periodic report: complete data is decoded, a piece of split data
    /// is shown as bytes with a note.
    static func dataBlock(
        _ f: HCIFieldIDs,
        complete: Bool,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let length = try ctx.addUInt8(f.evt[.dataLength], &r)
        var data = try r.readSlice(Int(length))
        if complete {
            ctx.handOff(f.next.advertisingData, 0, &data)
        } else if !data.isAtEnd {
            let range = data.offset..<(data.offset + data.remaining)
            ctx.tree.add(ctx.core[.data], .bytes, range, source: data.source)
            ctx.expert(
                .comment,
                "Part of advertising data split over several reports; not decoded",
                range,
                source: data.source
            )
        }
    }

    static func periodicAdvertisingReport(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext,
        v2: Bool
    ) throws(DecodeError) {
        let e = f.evt
        try ctx.addUInt16(e[.syncHandle], &r)
        try ctx.addInt8(e[.txPower], &r)
        try ctx.addInt8(e[.rssi], &r)
        try ctx.addUInt8(e[.cteType], &r)
        if v2 {
            try ctx.addUInt16(e[.periodicEventCounter], &r)
            try ctx.addUInt8(e[.subevent], &r)
        }
        let status = try ctx.addUInt8(e[.dataStatus], &r)
        try dataBlock(f, complete: status == 0, &r, &ctx)
    }
}
