import BLEInspectCore

/// HCI event packets (H4 type 4): the header, then the parameters by event code
/// (`StandardTables.hciEvent`).
struct HCIEventPacket: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let e = f.evt
        HCIPacket.open(f, 4, e.layer, r, &ctx)
        let code = try ctx.addUInt8(e[.code], &r)
        let length = try ctx.addUInt8(e[.paramLength], &r)
        let direction = ctx.direction
        ctx.setInfo(HCIEventNames.summaries[HCIEventNames.summaryIndex(code, direction)])
        var params = try HCIPacket.parameters(Int(length), &r, &ctx)
        ctx.handOff(f.next.event, code, &params)
        ctx.tree.close()
    }

    static let leMeta: UInt8 = 0x3E
    /// Events whose decoders keep no state: Number Of Completed Packets.
    static let stateless: Set<UInt8> = [0x13]
    /// LE subevents whose decoders keep no state, apart from the advertising data they dispatch:
    /// the advertising reports (legacy, directed, extended).
    static let statelessSubevents: Set<UInt8> = [0x02, 0x0B, 0x0D]
}

/// Command Complete: the command's opcode, then its return parameters by opcode
/// (`StandardTables.hciCommandComplete`, which get the bytes after the status).
struct CommandCompleteDecoder: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let e = f.evt
        try ctx.addUInt8(e[.numCommandPackets], &r)
        let op = try HCIPacket.opcode(e[.opcode], ogf: e[.ogf], ocf: e[.ocf], &r, &ctx)
        let dir = ctx.directionWord(unknown: "Rcvd")
        ctx.setInfo(parts: dir, " Command Complete (", HCIPacket.commandLabel(op), ")")
        // The No Operation opcode (a controller announcing its command credits) has no
        // return parameters.
        guard op != 0, !r.isAtEnd else {
            ctx.leftover(&r)
            return
        }
        let status = try ctx.addUInt8(e[.status], &r)
        if status != 0 {
            ctx.appendInfo(HCIEventNames.errorName(status))
            if r.isAtEnd { return }
        }
        var rest = r.readRest()
        ctx.handOff(f.next.commandComplete, op, &rest)
    }
}

/// Command Status.
struct CommandStatusDecoder: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let e = f.evt
        let status = try ctx.addUInt8(e[.status], &r)
        try ctx.addUInt8(e[.numCommandPackets], &r)
        let op = try HCIPacket.opcode(e[.opcode], ogf: e[.ogf], ocf: e[.ocf], &r, &ctx)
        let dir = ctx.directionWord(unknown: "Rcvd")
        ctx.setInfo(parts: dir, " Command Status (", HCIPacket.commandLabel(op), ")")
        if status != 0 { ctx.appendInfo(HCIEventNames.errorName(status)) }
        ctx.leftover(&r)
    }
}

/// LE Meta: the subevent code, then its parameters by subevent (`StandardTables.leMetaSubevent`).
struct LEMetaDecoder: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let sub = try ctx.addUInt8(f.evt[.leMetaSubevent], &r)
        let direction = ctx.direction
        ctx.setInfo(HCIEventNames.leMetaSummaries[HCIEventNames.summaryIndex(sub, direction)])
        var rest = r.readRest()
        ctx.handOff(f.next.subevent, sub, &rest)
    }
}

/// Decoders of event parameters (other than the three above).
enum HCIEventDecoders {
    // swift-format-ignore
    static func bindings(_ f: HCIFieldIDs) -> [(UInt8, any Dissector)] {
        let e = f.evt
        let status = LayoutItem.u8(e[.status])
        let handle = LayoutItem.handle(e[.connectionHandle])
        let addr = LayoutItem.address(e[.bdAddr])
        func fixed(_ s: [LayoutItem]) -> any Dissector { LayoutParameters(s) }
        func custom(_ body: @escaping HCIDecoder.Body) -> any Dissector { HCIDecoder(f, body) }
        // One entry per response (Inquiry Result, with RSSI), each with its own address.
        let response = [addr, .u8(e[.pageScanRepetitionMode]), LayoutItem.skip(2), .u24(e[.classOfDevice]), .u16(e[.clockOffset])]
        let encryption: [LayoutItem] = [status, handle, .u8(e[.encryptionEnable])]
        let adData = LayoutItem.dispatchRest(f.next.advertisingData.with(key: 0))
        let responseRSSI = [addr, .u8(e[.pageScanRepetitionMode]), LayoutItem.skip(1), .u24(e[.classOfDevice]), .u16(e[.clockOffset]), .i8(e[.rssi])]
        return [
            (0x01, fixed([status])),
            (0x02, fixed(LayoutItem.counted(e[.numResponses], response))),
            (0x03, custom(connectionComplete)),
            (0x04, fixed([addr, .u24(e[.classOfDevice]), .u8(e[.linkType])])),
            (0x05, custom(disconnectionComplete)),
            (0x06, fixed([status, handle])),
            (0x07, fixed([status, addr, .name(e[.remoteName], 248)])),
            (0x08, fixed(encryption)),
            (0x09, fixed([status, handle])),
            (0x0B, fixed([status, handle, .bytes(e[.lmpFeatures], 8)])),
            (0x0C, fixed([status, handle, .u8(e[.lmpVersion]), .u16(e[.compID]), .u16(e[.lmpSubversion])])),
            (0x0E, CommandCompleteDecoder(f: f)),
            (0x0F, CommandStatusDecoder(f: f)),
            (0x10, fixed([.u8(e[.hardwareCode])])),
            (0x11, fixed([handle])),
            (0x12, fixed([status, addr, .u8(e[.role])])),
            (0x13, fixed(LayoutItem.counted(e[.numHandles], [handle, .u16(e[.numCompletedPackets])]))),
            (0x14, fixed([status, handle, .u8(e[.currentMode]), .u16(e[.interval])])),
            (0x16, fixed([addr])),
            (0x17, fixed([addr])),
            (0x18, fixed([addr, .bytes(e[.linkKey], 16), .u8(e[.keyType])])),
            (0x1A, fixed([.u8(e[.linkType])])),
            (0x1B, fixed([handle, .u8(e[.maxSlots])])),
            (0x1C, fixed([status, handle, .u16(e[.clockOffset])])),
            (0x1D, fixed([status, handle, .u16(e[.packetType])])),
            (0x20, fixed([addr, .u8(e[.pageScanRepetitionMode])])),
            (0x22, fixed(LayoutItem.counted(e[.numResponses], responseRSSI))),
            (0x2F, fixed([.u8(e[.numResponses])] + responseRSSI + [adData])),
            (0x23, fixed([status, handle, .u8(e[.pageNumber]), .u8(e[.maxPageNumber]), .bytes(e[.lmpFeatures], 8)])),
            (0x2C, fixed([status, handle, addr, .u8(e[.syncLinkType]), .u8(e[.syncTxInterval]), .u8(e[.syncRtxWindow]), .u16(e[.syncRxPacketLength]), .u16(e[.syncTxPacketLength]), .u8(e[.airMode])])),
            (0x30, fixed([status, handle])),
            (0x31, fixed([addr])),
            (0x32, fixed([addr, .u8(e[.ioCapability]), .u8(e[.oobDataPresent]), .u8(e[.authRequirements])])),
            (0x33, fixed([addr, .u32(e[.numericValue])])),
            (0x34, fixed([addr])),
            (0x35, fixed([addr])),
            (0x36, fixed([status, addr])),
            (0x38, fixed([handle, .u16(e[.linkSupervisionTimeout])])),
            (0x39, fixed([handle])),
            (0x3B, fixed([addr, .u32(e[.passkey])])),
            (0x3C, fixed([addr, .u8(e[.notificationType])])),
            (0x3D, fixed([addr, .bytes(e[.lmpFeatures], 8)])),
            (0x3E, LEMetaDecoder(f: f)),
            (0x57, fixed([handle])),
            (0x59, fixed(encryption + [.u8(e[.encKeySize])])),
        ]
    }

    static func connectionComplete(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext)
        throws(DecodeError)
    {
        let e = f.evt
        let status = try ctx.addUInt8(e[.status], &r)
        let hs = r.offset
        let h = try ctx.handle(e[.connectionHandle], &r)
        let peer = try ctx.addAddress(e[.bdAddr], &r)
        let link = try ctx.addUInt8(e[.linkType], &r)
        try ctx.addUInt8(e[.encryptionMode], &r)
        if status == 0 && link == 0x01 {
            HCIConnections.opened(
                &ctx,
                handle: h,
                peer: peer,
                peerAddressType: 0,
                role: 0,
                at: hs..<(hs + 2),
                source: r.source
            )
        }
        if status != 0 { ctx.appendInfo(HCIEventNames.errorName(status)) }
    }

    static func disconnectionComplete(_ f: HCIFieldIDs, _ r: inout ByteReader, _ ctx: inout DissectionContext)
        throws(DecodeError)
    {
        let e = f.evt
        let status = try ctx.addUInt8(e[.status], &r)
        let h = try ctx.handle(e[.connectionHandle], &r)
        let reason = try ctx.addUInt8(e[.reason], &r)
        if status == 0 {
            HCIConnections.closed(&ctx, handle: h)
            ctx.appendInfo("Handle " + HCIPacket.hex16(h) + ": " + HCIEventNames.errorName(reason))
        } else {
            ctx.appendInfo(HCIEventNames.errorName(status))
        }
    }
}

/// Decoders of Command Complete return parameters (after the status).
enum HCIReturnDecoders {
    // swift-format-ignore
    static func bindings(_ f: HCIFieldIDs) -> [(UInt16, any Dissector)] {
        let e = f.evt
        let handle = LayoutItem.handle(e[.connectionHandle])
        func fixed(_ s: [LayoutItem]) -> any Dissector { LayoutParameters(s) }
        // The many commands whose return parameters are the address they concern.
        let address = fixed([.address(e[.bdAddr])])
        return [
            (0x0406, fixed([])),
            (0x0408, address),
            // Read Extended Inquiry Response: FEC required, then the EIR data.
            (0x0C51, fixed([.u8(e[.fecRequired]), .dispatchRest(f.next.advertisingData.with(key: 0))])),
            (0x0409, fixed([])),
            (0x040B, address),
            (0x040C, address),
            (0x040D, address),
            (0x040E, address),
            (0x041A, address),
            (0x042B, address),
            (0x042C, address),
            (0x042D, address),
            (0x042E, address),
            (0x042F, address),
            (0x0430, address),
            (0x0433, address),
            (0x0434, address),
            (0x080C, fixed([handle, .u16(e[.linkPolicySettings])])),
            (0x080E, fixed([.u16(e[.linkPolicySettings])])),
            (0x080D, fixed([handle])),
            (0x0811, fixed([handle])),
            (0x0C08, fixed([handle])),
            (0x0C14, fixed([.name(e[.deviceName], 248)])),
            (0x0C27, fixed([handle, .u16(e[.flushTimeout])])),
            (0x0C28, fixed([handle])),
            (0x0C2D, fixed([handle, .i8(e[.transmitPowerLevel])])),
            (0x0C36, fixed([handle, .u16(e[.linkSupervisionTimeout])])),
            (0x0C37, fixed([handle])),
            (0x0C6C, fixed([.u8(e[.leSupportedHost]), .u8(e[.leSimultaneousHost])])),
            (0x0C7B, fixed([handle, .u16(e[.authenticatedPayloadTimeout])])),
            (0x0C7C, fixed([handle])),
            (0x1001, fixed([.u8(e[.hciVersion]), .u16(e[.hciRevision]), .u8(e[.lmpVersion]), .u16(e[.compID]), .u16(e[.lmpSubversion])])),
            (0x1002, fixed([.bytes(e[.localSupportedCommands], 64)])),
            (0x1003, fixed([.bytes(e[.lmpFeatures], 8)])),
            (0x1004, fixed([.u8(e[.pageNumber]), .u8(e[.maxPageNumber]), .bytes(e[.lmpFeatures], 8)])),
            (0x1005, fixed([.u16(e[.maxDataLengthACL]), .u8(e[.maxDataLengthSCO]), .u16(e[.maxDataNumACL]), .u16(e[.maxDataNumSCO])])),
            (0x1009, address),
            (0x1405, fixed([handle, .i8(e[.rssi])])),
            (0x1408, fixed([handle, .u8(e[.encKeySize])])),
            (0x2002, fixed([.u16(e[.leACLDataPktLen]), .u8(e[.leTotalNumACLDataPkts])])),
            (0x2003, fixed([.u64(e[.leFeatures])])),
            (0x2007, fixed([.i8(e[.transmitPowerLevel])])),
            (0x200F, fixed([.u8(e[.leWhiteListSize])])),
            (0x2015, fixed([handle, .bytes(e[.leChannelMap], 5)])),
            (0x2017, fixed([.bytes(e[.leEncryptedData], 16)])),
            (0x2018, fixed([.bytes(e[.leRandomNumber], 8)])),
            (0x201A, fixed([handle])),
            (0x201B, fixed([handle])),
            (0x201C, fixed([.u64(e[.leStates])])),
            (0x2020, fixed([handle])),
            (0x2021, fixed([handle])),
            (0x2022, fixed([handle])),
            (0x2023, fixed([.u16(e[.suggestedMaxTxOctets]), .u16(e[.suggestedMaxTxTime])])),
            (0x202A, fixed([.u8(e[.resolvingListSize])])),
            (0x202B, fixed([.address(e[.lePeerRPA])])),
            (0x202C, fixed([.address(e[.leLocalRPA])])),
            (0x202F, fixed([.u16(e[.suggestedMaxTxOctets]), .u16(e[.suggestedMaxTxTime]), .u16(e[.suggestedMaxRxOctets]), .u16(e[.suggestedMaxRxTime])])),
            (0x2030, fixed([handle, .u8(e[.leTxPhy]), .u8(e[.leRxPhy])])),
            (0x2036, fixed([.i8(e[.txPower])])),
            (0x203A, fixed([.u16(e[.maxAdvDataLength])])),
            (0x203B, fixed([.u8(e[.numSupportedAdvSets])])),
            (0x204A, fixed([.u8(e[.lePeriodicAdvListSize])])),
            (0x204B, fixed([.i8(e[.minTxPower]), .i8(e[.maxTxPower])])),
            (0x204C, fixed([.i16(e[.rfTxPathCompensation]), .i16(e[.rfRxPathCompensation])])),
            (0x2060, fixed([.u16(e[.leACLDataPktLen]), .u8(e[.leTotalNumACLDataPkts]), .u16(e[.isoDataPktLen]), .u8(e[.totalNumISODataPkts])])),
            (0x207F, fixed([.i8(e[.txPower])])),
        ]
    }
}
