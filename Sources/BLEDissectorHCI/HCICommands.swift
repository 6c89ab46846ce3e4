import BLEInspectCore

/// HCI command packets (H4 type 1): the header, then the parameters by opcode
/// (`StandardTables.hciCommand`, handed off by `HCIHandoffs.command`).
struct HCICommandPacket: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let c = f.cmd
        HCIPacket.open(f, 1, c.layer, r, &ctx)
        let op = try HCIPacket.opcode(c[.opcode], ogf: c[.ogf], ocf: c[.ocf], &r, &ctx)
        let length = try ctx.addUInt8(c[.paramLength], &r)
        let dir = ctx.directionWord(unknown: "Sent")
        ctx.setInfo(dir + " " + HCIPacket.commandLabel(op))
        var params = try HCIPacket.parameters(Int(length), &r, &ctx)
        ctx.handOff(f.next.command, op, &params)
        ctx.tree.close()
    }
}

/// Decoders of command parameters.
enum HCICommandDecoders {
    // swift-format-ignore
    static func bindings(_ f: HCIFieldIDs) -> [(UInt16, any Dissector)] {
        let c = f.cmd
        let handle = LayoutItem.handle(c[.connectionHandle])
        let addr = LayoutItem.address(c[.bdAddr])
        let connParams: [LayoutItem] = [
            .u16(c[.leConIntervalMin]), .u16(c[.leConIntervalMax]), .u16(c[.leConLatency]), .u16(c[.leSupvTimeout]),
            .u16(c[.leMinCELength]), .u16(c[.leMaxCELength]),
        ]
        let adData = LayoutItem.dispatchRest(f.next.advertisingData.with(key: 0))
        let channelMap = LayoutItem.bits(c[.leAdvtsChannelMap], 1, [c[.leAdvtsChMap1]: 0x01, c[.leAdvtsChMap2]: 0x02, c[.leAdvtsChMap3]: 0x04])
        let phys: [LayoutItem] = [.bits(c[.allPhys], 1, [c[.allPhysTx]: 0x01, c[.allPhysRx]: 0x02]), .u8(c[.txPhys]), .u8(c[.rxPhys])]
        let advertisingProperties = LayoutItem.bits(c[.advertisingProperties], 2, [c[.advPropConnectable]: 0x01, c[.advPropScannable]: 0x02, c[.advPropDirected]: 0x04, c[.advPropHighDutyCycle]: 0x08, c[.advPropLegacy]: 0x10, c[.advPropAnonymous]: 0x20, c[.advPropTxPower]: 0x40])
        let extendedAdvertisingParameters: [LayoutItem] = [
            .u8(c[.advertisingHandle]), advertisingProperties, .u24(c[.leAdvtsIntervalMin]), .u24(c[.leAdvtsIntervalMax]), channelMap,
            .u8(c[.leOwnAddressType]), .u8(c[.lePeerAddressType]), addr, .u8(c[.leAdvtsFilterPolicy]), .i8(c[.powerLevel]),
            .u8(c[.primaryAdvertisingPHY]), .u8(c[.secondaryAdvertisingMaxSkip]), .u8(c[.secondaryAdvertisingPHY]), .u8(c[.advertisingSID]),
            .u8(c[.scanRequestNotificationEnable]),
        ]
        let createConnection: [LayoutItem] = [
            .u8(c[.leInitiatorFilterPolicy]), .u8(c[.leOwnAddressType]), .u8(c[.lePeerAddressType]), addr,
            .bits(c[.leInitPhys], 1, [c[.leInitPhys1M]: 0x01, c[.leInitPhys2M]: 0x02, c[.leInitPhysCoded]: 0x04]),
        ]
        let initiating: [LayoutItem] = [.u16(c[.leScanInterval]), .u16(c[.leScanWindow])] + connParams
        func fixed(_ s: [LayoutItem]) -> any Dissector { LayoutParameters(s) }
        func custom(_ body: @escaping HCIDecoder.Body) -> any Dissector { HCIDecoder(f, body) }
        let extendedAdvertisingData: HCIDecoder.Body = { f, r, ctx throws(DecodeError) in
            try advertisingDataBlock(f, fragmentPreference: true, &r, &ctx)
        }
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
            (0x0C35, fixed(LayoutItem.counted(c[.numHandles], [handle, .u16(c[.numCompletedPackets])]))),
            (0x0C52, fixed([.u8(c[.fecRequired]), adData])),
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
            (0x2006, fixed([.u16(c[.leAdvtsIntervalMin]), .u16(c[.leAdvtsIntervalMax]), .u8(c[.leAdvtsType]), .u8(c[.leOwnAddressType]), .u8(c[.leDirectAddressType]), addr, channelMap, .u8(c[.leAdvtsFilterPolicy])])),
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
            (0x2031, fixed(phys)),
            (0x2032, fixed([handle] + phys + [.u16(c[.phyOptions])])),
            (0x2035, fixed([.u8(c[.advertisingHandle]), addr])),
            (0x2036, fixed(extendedAdvertisingParameters)),
            (0x2037, custom(extendedAdvertisingData)),
            (0x2038, custom(extendedAdvertisingData)),
            (0x2039, fixed([.u8(c[.leAdvtsEnable])] + LayoutItem.groups(count: c[.advNumSets], c[.advSet], [.u8(c[.advertisingHandle]), .u16(c[.advDuration]), .u8(c[.maxExtendedAdvertisingEvents])]))),
            (0x203A, fixed([])), (0x203B, fixed([])),
            (0x203C, fixed([.u8(c[.advertisingHandle])])),
            (0x203D, fixed([])),
            (0x203E, fixed([.u8(c[.advertisingHandle]), .u16(c[.periodicAdvIntervalMin]), .u16(c[.periodicAdvIntervalMax]), .u16(c[.periodicAdvProperties])])),
            (0x203F, custom { f, r, ctx throws(DecodeError) in try advertisingDataBlock(f, fragmentPreference: false, &r, &ctx) }),
            (0x2040, fixed([.u8(c[.leAdvtsEnable]), .u8(c[.advertisingHandle])])),
            (0x2041, PHYParameters(head: [.u8(c[.leOwnAddressType]), .u8(c[.leScanFilterPolicy]), .bits(c[.leScanPhys], 1, [c[.leScanPhys1M]: 0x01, c[.leScanPhysCoded]: 0x04])], group: c[.leScanPhyParam], phys: 0x05, each: [.u8(c[.leScanType]), .u16(c[.leScanInterval]), .u16(c[.leScanWindow])])),
            (0x2042, fixed([.u8(c[.leScanEnable]), .u8(c[.leFilterDuplicates]), .u16(c[.scanDuration]), .u16(c[.scanPeriod])])),
            (0x2043, PHYParameters(head: createConnection, group: c[.leInitPhyParam], phys: 0x07, each: initiating)),
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
            (0x207F, fixed(extendedAdvertisingParameters + [.u8(c[.primaryAdvPHYOptions]), .u8(c[.secondaryAdvPHYOptions])])),
            (0x2085, PHYParameters(head: [.u8(c[.advertisingHandle]), .u8(c[.subevent])] + createConnection, group: c[.leInitPhyParam], phys: 0x07, each: initiating)),
            (0x2086, fixed([.u8(c[.advertisingHandle]), .u16(c[.periodicAdvIntervalMin]), .u16(c[.periodicAdvIntervalMax]), .u16(c[.periodicAdvProperties])])),
        ]
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
        ctx.handOff(f.next.advertisingData, 0, &data)
        if !r.isAtEnd {
            let s = r.offset
            _ = r.readRest()
            ctx.tree.add(f.cmd[.unusedData], .bytes, s..<r.offset, source: r.source)
        }
    }

    /// LE Set Extended Advertising Data and Scan Response Data (`fragmentPreference`), and LE Set
    /// Periodic Advertising Data: complete data goes to the AD dissectors; a fragment is shown as
    /// bytes (its AD structures may be cut).
    static func advertisingDataBlock(
        _ f: HCIFieldIDs,
        fragmentPreference: Bool,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        try ctx.addUInt8(f.cmd[.advertisingHandle], &r)
        let operation = try ctx.addUInt8(f.cmd[.advDataOperation], &r)
        if fragmentPreference { try ctx.addUInt8(f.cmd[.advFragmentPreference], &r) }
        let length = try ctx.addUInt8(f.cmd[.leDataLength], &r)
        var data = try r.readSlice(Int(length))
        if operation == 0x03 || operation == 0x04 {
            ctx.handOff(f.next.advertisingData, 0, &data)
        } else if !data.isAtEnd {
            ctx.tree.add(ctx.core[.data], .bytes, data.offset..<(data.offset + data.remaining), source: data.source)
            ctx.appendInfo("fragment")
        }
    }
}

/// Extended scanning and initiating parameters: a head ending with a PHY bit set, then one
/// block of parameters, in its own group, per PHY the set has (of those in `phys`).
struct PHYParameters: Dissector {
    let head: FieldLayout
    let group: FieldID
    let phys: UInt8
    let each: FieldLayout

    init(head: [LayoutItem], group: FieldID, phys: UInt8, each: [LayoutItem]) {
        self.head = FieldLayout(head)
        self.group = group
        self.phys = phys
        self.each = FieldLayout(each)
    }

    /// The PHY bits, in the order their parameter blocks come.
    static let bits: [(UInt8, String)] = [(0x01, "LE 1M"), (0x02, "LE 2M"), (0x04, "LE Coded")]

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        var run = LayoutRun()
        var host = PlainLayout()
        try run.run(head, &r, &ctx, host: &host)
        let set = UInt8(truncatingIfNeeded: run.previous) & phys
        for (bit, name) in Self.bits where set & bit != 0 {
            let start = r.offset
            let node = ctx.tree.nextIndex
            ctx.tree.open(group, text: name, start..<start, source: r.source)
            try run.run(each, &r, &ctx, host: &host)
            ctx.tree.close()
            ctx.tree.setEnd(ofNode: node, to: r.offset)
        }
        ctx.leftover(&r)
    }
}
