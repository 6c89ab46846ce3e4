import BLEInspectCore

/// HCI command packets (H4 type 1): the header, then the parameters by opcode
/// (`StandardTables.hciCommand`).
struct HCICommandPacket: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        HCIPacket.addH4(f, 1, &ctx)
        let c = f.cmd
        ctx.tree.open(c.layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
        let op = try HCIPacket.opcode(c[.opcode], ogf: c[.ogf], ocf: c[.ocf], &r, &ctx)
        let length = try ctx.addUInt8(c[.paramLength], &r)
        let dir = ctx.directionWord(unknown: "Sent")
        ctx.setInfo(dir + " " + HCIPacket.commandLabel(op))
        var params = try HCIPacket.parameters(Int(length), &r, &ctx)
        ctx.dispatch(StandardTables.hciCommand, DissectorKey(op), &params)
        ctx.tree.close()
    }
}

/// Decoders of command parameters.
enum HCICommandDecoders {
    // swift-format-ignore
    static func bindings(_ f: HCIFieldIDs) -> [(UInt16, any Dissector)] {
        let c = f.cmd
        let handle = Step.handle(c[.connectionHandle])
        let addr = Step.addr(c[.bdAddr])
        let connParams: [Step] = [
            .u16(c[.leConIntervalMin]), .u16(c[.leConIntervalMax]), .u16(c[.leConLatency]), .u16(c[.leSupvTimeout]),
            .u16(c[.leMinCELength]), .u16(c[.leMaxCELength]),
        ]
        func fixed(_ s: [Step]) -> any Dissector { FixedParameters(s) }
        func custom(_ body: @escaping HCIDecoder.Body) -> any Dissector { HCIDecoder(f, body) }
        return [
            // Link control
            (0x0405, fixed([addr, .u16(c[.packetType]), .u8(c[.pageScanRepetitionMode]), .bytes(f.cmd[.unusedData], 1), .u16(c[.clockOffset]), .u8(c[.allowRoleSwitch])])),
            (0x0406, fixed([handle, .u8(c[.reason])])),
            (0x0408, fixed([addr])),
            (0x0409, fixed([addr, .u8(c[.acceptRole])])),
            (0x040A, fixed([addr, .u8(c[.reason])])),
            (0x040B, fixed([addr, .bytes(c[.linkKey], 16)])),
            (0x040C, fixed([addr])),
            (0x040E, fixed([addr])),
            (0x040F, fixed([handle, .u16(c[.packetType])])),
            (0x0411, fixed([handle])),
            (0x0413, fixed([handle, .u8(c[.encryptionEnable])])),
            (0x0415, fixed([handle])),
            (0x0419, fixed([addr, .u8(c[.pageScanRepetitionMode]), .bytes(f.cmd[.unusedData], 1), .u16(c[.clockOffset])])),
            (0x041A, fixed([addr])),
            (0x041B, fixed([handle])),
            (0x041C, fixed([handle, .u8(c[.pageNumber])])),
            (0x041D, fixed([handle])),
            (0x041F, fixed([handle])),
            (0x042B, fixed([addr, .u8(c[.ioCapability]), .u8(c[.oobDataPresent]), .u8(c[.authRequirements])])),
            (0x042C, fixed([addr])),
            (0x042D, fixed([addr])),
            (0x042E, fixed([addr, .u32(c[.passkey])])),
            (0x042F, fixed([addr])),
            (0x0433, fixed([addr])),
            (0x0434, fixed([addr, .u8(c[.reason])])),
            // Link policy
            (0x0803, fixed([handle, .u16(c[.sniffMaxInterval]), .u16(c[.sniffMinInterval]), .u16(c[.sniffAttempt]), .u16(c[.timeout])])),
            (0x0804, fixed([handle])),
            (0x0809, fixed([handle])),
            (0x080B, fixed([addr, .u8(c[.role])])),
            (0x080C, fixed([handle])),
            (0x080D, fixed([handle, .u16(c[.linkPolicySettings])])),
            (0x080E, fixed([])),
            (0x080F, fixed([.u16(c[.linkPolicySettings])])),
            (0x0811, fixed([handle, .u16(c[.maxLatency]), .u16(c[.minRemoteTimeout]), .u16(c[.minLocalTimeout])])),
            // Controller & baseband
            (0x0C01, fixed([.u64(c[.eventMask])])),
            (0x0C03, fixed([])),
            (0x0C08, fixed([handle])),
            (0x0C12, fixed([addr, .u8(c[.deleteAllFlag])])),
            (0x0C13, fixed([.name(c[.deviceName], 248)])),
            (0x0C14, fixed([])),
            (0x0C16, fixed([.u16(c[.timeout])])),
            (0x0C18, fixed([.u16(c[.timeout])])),
            (0x0C1A, fixed([.u8(c[.scanEnable])])),
            (0x0C27, fixed([handle])),
            (0x0C28, fixed([handle, .u16(c[.timeout])])),
            (0x0C2D, fixed([handle, .u8(c[.txPowerLevelType])])),
            (0x0C33, fixed([.u16(c[.maxDataLengthACL]), .u8(c[.maxDataLengthSCO]), .u16(c[.maxDataNumACL]), .u16(c[.maxDataNumSCO])])),
            (0x0C35, custom(hostNumberOfCompletedPackets)),
            (0x0C52, custom(writeExtendedInquiryResponse)),
            (0x0C36, fixed([handle])),
            (0x0C37, fixed([handle, .u16(c[.timeout])])),
            (0x0C5F, fixed([handle, .u8(c[.flushPacketType])])),
            (0x0C56, fixed([.u8(c[.simplePairingMode])])),
            (0x0C63, fixed([.u64(c[.eventMaskPage2])])),
            (0x0C6C, fixed([])),
            (0x0C6D, fixed([.u8(c[.leSupportedHost]), .u8(c[.leSimultaneousHost])])),
            (0x0C7A, fixed([.u8(c[.secureConnectionHostSupport])])),
            (0x0C7B, fixed([handle])),
            // Informational
            (0x1001, fixed([])), (0x1002, fixed([])), (0x1003, fixed([])),
            (0x1004, fixed([.u8(c[.pageNumber])])),
            (0x1005, fixed([])), (0x1009, fixed([])),
            // Status
            (0x1401, fixed([handle])), (0x1403, fixed([handle])), (0x1405, fixed([handle])), (0x1408, fixed([handle])),
            // LE
            (0x2001, fixed([.u64(c[.leEventMask])])),
            (0x2002, fixed([])), (0x2003, fixed([])),
            (0x2005, fixed([addr])),
            (0x2006, custom(leSetAdvertisingParameters)),
            (0x2007, fixed([])),
            (0x2008, custom(leSetAdvertisingData)),
            (0x2009, custom(leSetAdvertisingData)),
            (0x200A, fixed([.u8(c[.leAdvtsEnable])])),
            (0x200B, fixed([.u8(c[.leScanType]), .u16(c[.leScanInterval]), .u16(c[.leScanWindow]), .u8(c[.leOwnAddressType]), .u8(c[.leScanFilterPolicy])])),
            (0x200C, fixed([.u8(c[.leScanEnable]), .u8(c[.leFilterDuplicates])])),
            (0x200D, fixed([.u16(c[.leScanInterval]), .u16(c[.leScanWindow]), .u8(c[.leInitiatorFilterPolicy]), .u8(c[.lePeerAddressType]), addr, .u8(c[.leOwnAddressType])] + connParams)),
            (0x200E, fixed([])), (0x200F, fixed([])), (0x2010, fixed([])),
            (0x2011, fixed([.u8(c[.leAddressType]), addr])),
            (0x2012, fixed([.u8(c[.leAddressType]), addr])),
            (0x2013, fixed([handle] + connParams)),
            (0x2014, fixed([.bytes(c[.leChannelMap], 5)])),
            (0x2015, fixed([handle])),
            (0x2016, fixed([handle])),
            (0x2017, fixed([.bytes(c[.leKey], 16), .bytes(c[.lePlaintext], 16)])),
            (0x2018, fixed([])),
            (0x2019, fixed([handle, .bytes(c[.leRandomNumber], 8), .u16(c[.leEncryptedDiversifier]), .bytes(c[.leLongTermKey], 16)])),
            (0x201A, fixed([handle, .bytes(c[.leLongTermKey], 16)])),
            (0x201B, fixed([handle])),
            (0x201C, fixed([])),
            (0x2020, fixed([handle] + connParams)),
            (0x2021, fixed([handle, .u8(c[.reason])])),
            (0x2022, fixed([handle, .u16(c[.leTxOctets]), .u16(c[.leTxTime])])),
            (0x2023, fixed([])),
            (0x2024, fixed([.u16(c[.leSuggestedMaxTxOctets]), .u16(c[.leSuggestedMaxTxTime])])),
            (0x2025, fixed([])),
            (0x2026, fixed([.bytes(c[.leRemoteP256PublicKey], 64)])),
            (0x2027, fixed([.u8(c[.lePeerIdentityAddressType]), addr, .bytes(c[.lePeerIRK], 16), .bytes(c[.leLocalIRK], 16)])),
            (0x2028, fixed([.u8(c[.lePeerIdentityAddressType]), addr])),
            (0x2029, fixed([])), (0x202A, fixed([])),
            (0x202B, fixed([.u8(c[.lePeerIdentityAddressType]), addr])),
            (0x202C, fixed([.u8(c[.lePeerIdentityAddressType]), addr])),
            (0x202D, fixed([.u8(c[.leAddressResolutionEnable])])),
            (0x202E, fixed([.u16(c[.leRPATimeout])])),
            (0x202F, fixed([])),
            (0x2030, fixed([handle])),
            (0x2031, custom(leSetDefaultPHY)),
            (0x2032, custom(leSetPHY)),
            (0x2035, fixed([.u8(c[.advertisingHandle]), addr])),
            (0x2036, custom { f, r, ctx throws(DecodeError) in try leSetExtendedAdvertisingParameters(f, &r, &ctx, v2: false) }),
            (0x2037, custom(leSetExtendedAdvertisingData)),
            (0x2038, custom(leSetExtendedAdvertisingData)),
            (0x2039, custom(leSetExtendedAdvertisingEnable)),
            (0x203A, fixed([])), (0x203B, fixed([])),
            (0x203C, fixed([.u8(c[.advertisingHandle])])),
            (0x203D, fixed([])),
            (0x203E, fixed([.u8(c[.advertisingHandle]), .u16(c[.periodicAdvIntervalMin]), .u16(c[.periodicAdvIntervalMax]), .u16(c[.periodicAdvProperties])])),
            (0x203F, custom(leSetPeriodicAdvertisingData)),
            (0x2040, fixed([.u8(c[.leAdvtsEnable]), .u8(c[.advertisingHandle])])),
            (0x2041, custom(leSetExtendedScanParameters)),
            (0x2042, fixed([.u8(c[.leScanEnable]), .u8(c[.leFilterDuplicates]), .u16(c[.scanDuration]), .u16(c[.scanPeriod])])),
            (0x2043, custom { f, r, ctx throws(DecodeError) in try leExtendedCreateConnection(f, &r, &ctx, v2: false) }),
            (0x2044, fixed([.u8(c[.syncOptions]), .u8(c[.advertisingSID]), .u8(c[.lePeerAddressType]), addr, .u16(c[.skip]), .u16(c[.syncTimeout]), .u8(c[.syncCTEType])])),
            (0x2045, fixed([])),
            (0x2046, fixed([.u16(c[.syncHandle])])),
            (0x2047, fixed([.u8(c[.leAddressType]), addr, .u8(c[.advertisingSID])])),
            (0x2048, fixed([.u8(c[.leAddressType]), addr, .u8(c[.advertisingSID])])),
            (0x2049, fixed([])), (0x204A, fixed([])), (0x204B, fixed([])), (0x204C, fixed([])),
            (0x204D, fixed([.i16(c[.rfTxPathCompensation]), .i16(c[.rfRxPathCompensation])])),
            (0x204E, fixed([.u8(c[.lePeerIdentityAddressType]), addr, .u8(c[.lePrivacyMode])])),
            (0x2059, fixed([.u16(c[.syncHandle]), .u8(c[.reportingEnable])])),
            (0x205E, fixed([.bytes(c[.leRemoteP256PublicKey], 64), .u8(c[.keyType])])),
            (0x2060, fixed([])),
            (0x2074, fixed([.u8(c[.featureBitNumber]), .u8(c[.featureBitValue])])),
            (0x207F, custom { f, r, ctx throws(DecodeError) in try leSetExtendedAdvertisingParameters(f, &r, &ctx, v2: true) }),
            (0x2085, custom { f, r, ctx throws(DecodeError) in try leExtendedCreateConnection(f, &r, &ctx, v2: true) }),
            (0x2086, fixed([.u8(c[.advertisingHandle]), .u16(c[.periodicAdvIntervalMin]), .u16(c[.periodicAdvIntervalMax]), .u16(c[.periodicAdvProperties])])),
        ]
    }

    static func hostNumberOfCompletedPackets(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let n = try ctx.addUInt8(f.cmd[.numHandles], &r)
        for _ in 0..<n {
            try ctx.handle(f.cmd[.connectionHandle], &r)
            try ctx.addUInt16(f.cmd[.numCompletedPackets], &r)
        }
    }

    static func channelMap(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError)
    {
        let c = f.cmd
        let s = r.offset
        let v = try r.readUInt8()
        ctx.bits(
            c[.leAdvtsChannelMap],
            UInt64(v),
            s..<r.offset,
            source: r.source,
            [(c[.leAdvtsChMap1], 0x01), (c[.leAdvtsChMap2], 0x02), (c[.leAdvtsChMap3], 0x04)]
        )
    }

    static func leSetAdvertisingParameters(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let c = f.cmd
        try ctx.addUInt16(c[.leAdvtsIntervalMin], &r)
        try ctx.addUInt16(c[.leAdvtsIntervalMax], &r)
        try ctx.addUInt8(c[.leAdvtsType], &r)
        try ctx.addUInt8(c[.leOwnAddressType], &r)
        try ctx.addUInt8(c[.leDirectAddressType], &r)
        try ctx.addAddress(c[.bdAddr], &r)
        try channelMap(f, &r, &ctx)
        try ctx.addUInt8(c[.leAdvtsFilterPolicy], &r)
    }

    /// LE Set Advertising Data / Scan Response Data: a length, then 31 bytes of which the first
    /// `length` are the AD structures.
    static func leSetAdvertisingData(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let length = try ctx.addUInt8(f.cmd[.leDataLength], &r)
        guard Int(length) <= r.remaining else {
            throw DecodeError(.malformed, offset: r.offset, "data length \(length) but \(r.remaining) bytes follow")
        }
        var data = try r.readSlice(Int(length))
        ctx.dispatch(StandardTables.advertisingData, DissectorKey(0), &data)
        if !r.isAtEnd {
            let s = r.offset
            _ = r.readRest()
            ctx.tree.add(f.cmd[.unusedData], .bytes, s..<r.offset, source: r.source)
        }
    }

    /// Write Extended Inquiry Response: FEC required, then 240 bytes of EIR data, which has the
    /// advertising-data format.
    static func writeExtendedInquiryResponse(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        try ctx.addUInt8(f.cmd[.fecRequired], &r)
        var data = r.readRest()
        ctx.dispatch(StandardTables.advertisingData, DissectorKey(0), &data)
    }

    static func phys(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let c = f.cmd
        let s = r.offset
        let all = try r.readUInt8()
        ctx.bits(
            c[.allPhys],
            UInt64(all),
            s..<r.offset,
            source: r.source,
            [(c[.allPhysTx], 0x01), (c[.allPhysRx], 0x02)]
        )
        try ctx.addUInt8(c[.txPhys], &r)
        try ctx.addUInt8(c[.rxPhys], &r)
    }

    static func leSetDefaultPHY(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext)
        throws(DecodeError)
    {
        try phys(f, &r, &ctx)
    }

    static func leSetPHY(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        try ctx.handle(f.cmd[.connectionHandle], &r)
        try phys(f, &r, &ctx)
        try ctx.addUInt16(f.cmd[.phyOptions], &r)
    }

    static func leSetExtendedAdvertisingParameters(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext,
        v2: Bool
    ) throws(DecodeError) {
        let c = f.cmd
        try ctx.addUInt8(c[.advertisingHandle], &r)
        let s = r.offset
        let props = try r.readUInt16()
        ctx.bits(
            c[.advertisingProperties],
            UInt64(props),
            s..<r.offset,
            source: r.source,
            [
                (c[.advPropConnectable], 0x01), (c[.advPropScannable], 0x02), (c[.advPropDirected], 0x04),
                (c[.advPropHighDutyCycle], 0x08), (c[.advPropLegacy], 0x10), (c[.advPropAnonymous], 0x20),
                (c[.advPropTxPower], 0x40),
            ]
        )
        try ctx.addUInt24(c[.leAdvtsIntervalMin], &r)
        try ctx.addUInt24(c[.leAdvtsIntervalMax], &r)
        try channelMap(f, &r, &ctx)
        try ctx.addUInt8(c[.leOwnAddressType], &r)
        try ctx.addUInt8(c[.lePeerAddressType], &r)
        try ctx.addAddress(c[.bdAddr], &r)
        try ctx.addUInt8(c[.leAdvtsFilterPolicy], &r)
        try ctx.addInt8(c[.powerLevel], &r)
        try ctx.addUInt8(c[.primaryAdvertisingPHY], &r)
        try ctx.addUInt8(c[.secondaryAdvertisingMaxSkip], &r)
        try ctx.addUInt8(c[.secondaryAdvertisingPHY], &r)
        try ctx.addUInt8(c[.advertisingSID], &r)
        try ctx.addUInt8(c[.scanRequestNotificationEnable], &r)
        if v2 {
            try ctx.addUInt8(c[.primaryAdvPHYOptions], &r)
            try ctx.addUInt8(c[.secondaryAdvPHYOptions], &r)
        }
    }

    /// Extended advertising data, scan response data and periodic advertising data: complete
    /// data goes to the AD dissectors; a fragment is shown as bytes (its AD structures may be cut).
    static func advertisingDataBlock(
        _ f: HCIFieldIDs,
        operation: UInt8,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let length = try ctx.addUInt8(f.cmd[.leDataLength], &r)
        var data = try r.readSlice(Int(length))
        if operation == 0x03 || operation == 0x04 {
            ctx.dispatch(StandardTables.advertisingData, DissectorKey(0), &data)
        } else if !data.isAtEnd {
            ctx.tree.add(ctx.core[.data], .bytes, data.offset..<(data.offset + data.remaining), source: data.source)
            ctx.appendInfo("fragment")
        }
    }

    static func leSetExtendedAdvertisingData(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        try ctx.addUInt8(f.cmd[.advertisingHandle], &r)
        let op = try ctx.addUInt8(f.cmd[.advDataOperation], &r)
        try ctx.addUInt8(f.cmd[.advFragmentPreference], &r)
        try advertisingDataBlock(f, operation: op, &r, &ctx)
    }

    static func leSetPeriodicAdvertisingData(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        try ctx.addUInt8(f.cmd[.advertisingHandle], &r)
        let op = try ctx.addUInt8(f.cmd[.advDataOperation], &r)
        try advertisingDataBlock(f, operation: op, &r, &ctx)
    }

    static func leSetExtendedAdvertisingEnable(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let c = f.cmd
        try ctx.addUInt8(c[.leAdvtsEnable], &r)
        let n = try ctx.addUInt8(c[.advNumSets], &r)
        for i in 0..<n {
            let s = r.offset
            let node = ctx.tree.nextIndex
            ctx.tree.open(c[.advSet], .unsigned(UInt64(i) + 1), s..<s, source: r.source)
            try ctx.addUInt8(c[.advertisingHandle], &r)
            try ctx.addUInt16(c[.advDuration], &r)
            try ctx.addUInt8(c[.maxExtendedAdvertisingEvents], &r)
            ctx.tree.close()
            ctx.tree.setEnd(ofNode: node, to: r.offset)
        }
    }

    /// The PHY bits of extended scanning and initiating, in the order their parameter blocks come.
    static let phyBits: [(UInt8, String)] = [(0x01, "LE 1M"), (0x02, "LE 2M"), (0x04, "LE Coded")]

    static func leSetExtendedScanParameters(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let c = f.cmd
        try ctx.addUInt8(c[.leOwnAddressType], &r)
        try ctx.addUInt8(c[.leScanFilterPolicy], &r)
        let s = r.offset
        let phys = try r.readUInt8()
        ctx.bits(
            c[.leScanPhys],
            UInt64(phys),
            s..<r.offset,
            source: r.source,
            [(c[.leScanPhys1M], 0x01), (c[.leScanPhysCoded], 0x04)]
        )
        for (bit, name) in phyBits where bit != 0x02 && phys & bit != 0 {
            let start = r.offset
            let node = ctx.tree.nextIndex
            ctx.tree.open(c[.leScanPhyParam], text: name, start..<start, source: r.source)
            try ctx.addUInt8(c[.leScanType], &r)
            try ctx.addUInt16(c[.leScanInterval], &r)
            try ctx.addUInt16(c[.leScanWindow], &r)
            ctx.tree.close()
            ctx.tree.setEnd(ofNode: node, to: r.offset)
        }
    }

    static func leExtendedCreateConnection(
        _ f: HCIFieldIDs,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext,
        v2: Bool
    ) throws(DecodeError) {
        let c = f.cmd
        if v2 {
            try ctx.addUInt8(c[.advertisingHandle], &r)
            try ctx.addUInt8(c[.subevent], &r)
        }
        try ctx.addUInt8(c[.leInitiatorFilterPolicy], &r)
        try ctx.addUInt8(c[.leOwnAddressType], &r)
        try ctx.addUInt8(c[.lePeerAddressType], &r)
        try ctx.addAddress(c[.bdAddr], &r)
        let s = r.offset
        let phys = try r.readUInt8()
        ctx.bits(
            c[.leInitPhys],
            UInt64(phys),
            s..<r.offset,
            source: r.source,
            [(c[.leInitPhys1M], 0x01), (c[.leInitPhys2M], 0x02), (c[.leInitPhysCoded], 0x04)]
        )
        for (bit, name) in phyBits where phys & bit != 0 {
            let start = r.offset
            let node = ctx.tree.nextIndex
            ctx.tree.open(c[.leInitPhyParam], text: name, start..<start, source: r.source)
            try ctx.addUInt16(c[.leScanInterval], &r)
            try ctx.addUInt16(c[.leScanWindow], &r)
            try ctx.addUInt16(c[.leConIntervalMin], &r)
            try ctx.addUInt16(c[.leConIntervalMax], &r)
            try ctx.addUInt16(c[.leConLatency], &r)
            try ctx.addUInt16(c[.leSupvTimeout], &r)
            try ctx.addUInt16(c[.leMinCELength], &r)
            try ctx.addUInt16(c[.leMaxCELength], &r)
            ctx.tree.close()
            ctx.tree.setEnd(ofNode: node, to: r.offset)
        }
    }
}
