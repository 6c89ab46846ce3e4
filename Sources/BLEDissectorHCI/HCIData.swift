import BLEInspectCore

/// ACL data packets (H4 type 2): the header, then L2CAP PDUs reassembled from the fragments
/// per (controller, connection handle, direction) and handed to `StandardTables.l2cap`.
struct HCIACLPacket: Dissector {
    let f: HCIFieldIDs

    /// The handle on which several Android controllers (Qualcomm) log vendor debug data that is
    /// not L2CAP.
    static let vendorDebugHandle: UInt16 = 0x0EDC

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let a = f.acl
        let (word, range) = try HCIPacket.openData(f, 2, a.layer, handle: a[.chandle], &r, &ctx)
        let handle = word & 0x0FFF
        let pb = UInt8((word >> 12) & 0x3)
        ctx.tree.add(a[.pbFlag], .unsigned(UInt64(pb)), range, source: r.source)
        ctx.tree.add(a[.bcFlag], .unsigned(UInt64(word >> 14)), range, source: r.source)
        let length = try ctx.addUInt16(a[.length], &r)
        HCIPacket.dataInfo(.acl, handle: handle, &ctx)
        let complete = r.remaining >= Int(length)
        var payload = try HCIPacket.parameters(Int(length), &r, &ctx)

        if handle == Self.vendorDebugHandle && !HCIConnections.isOpen(ctx, handle: handle) {
            showBytes(payload, &ctx)
            ctx.setInfo("Vendor debug data (handle 0x0EDC)")
            ctx.tree.close()
            return
        }
        ctx.packet.connection = ConnectionKey(controller: ctx.controller, handle: handle)
        guard complete else {
            // A cut packet cannot take part in reassembly; its bytes are shown.
            showBytes(payload, &ctx)
            ctx.tree.close()
            return
        }
        // The L2CAP layer follows the ACL layer (it does not nest in it).
        let pdu = reassemble(handle: handle, start: pb != 0x01, &payload, &ctx)
        ctx.tree.close()
        if var pdu { ctx.handOff(f.next.l2cap, 0, &pdu) }
    }

    private func showBytes(_ r: ByteReader, _ ctx: inout DissectionContext) {
        guard !r.isAtEnd else { return }
        ctx.tree.add(ctx.core[.data], .bytes, r.offset..<(r.offset + r.remaining), source: r.source)
    }

    /// Feeds one fragment to the reassembly of its connection and direction; returns the
    /// complete PDU when there is one (in the frame's bytes, or in a new data source).
    private func reassemble(
        handle: UInt16,
        start: Bool,
        _ payload: inout ByteReader,
        _ ctx: inout DissectionContext
    ) -> ByteReader? {
        // Unretained: the HCI state lives as long as the capture state (`unretainedModule`).
        let stateRef = ctx.unretainedModule(HCIState.self) { HCIState() }
        return stateRef._withUnsafeGuaranteedRef { state in
            reassemble(state, handle: handle, start: start, &payload, &ctx)
        }
    }

    private func reassemble(
        _ state: HCIState,
        handle: UInt16,
        start: Bool,
        _ payload: inout ByteReader,
        _ ctx: inout DissectionContext
    ) -> ByteReader? {
        let key = HCIState.ReassemblyKey(controller: ctx.controller, handle: handle, direction: ctx.direction.rawValue)
        let range = payload.offset..<(payload.offset + payload.remaining)
        let source = payload.source

        if start {
            if let old = state.take(key) {
                ctx.expert(
                    .warning,
                    "Incomplete L2CAP PDU discarded (\(old.progress), started in frame \(old.startFrame))",
                    range,
                    source: source
                )
            }
            if let expected = L2CAPFragments.expectedLength(payload), payload.remaining >= expected {
                // The whole PDU in one packet (its length field says so): decoded in place.
                return payload.readRest()
            }
            let bytes = payload.remainingSlice
            if bytes.isEmpty {
                ctx.expert(.warning, "Empty ACL start fragment", range, source: source)
                return nil
            }
            if state.partials.count >= HCIState.maximumPartials, let oldest = state.oldestPartial(),
                let dropped = state.take(oldest)
            {
                ctx.expert(
                    .warning,
                    "Limit reached: \(HCIState.maximumPartials) incomplete L2CAP PDUs; dropped the one started in frame \(dropped.startFrame)",
                    range,
                    source: source
                )
            }
            // Over the byte budget: the oldest PDUs make room (a start fragment is at most
            // 65,535 bytes, far below the budget).
            while state.buffered + bytes.count > HCIState.maximumBuffered, let oldest = state.oldestPartial(),
                let dropped = state.take(oldest)
            {
                ctx.expert(
                    .warning,
                    "Limit reached: \(HCIState.maximumBuffered) bytes of incomplete L2CAP PDUs; dropped the one started in frame \(dropped.startFrame)",
                    range,
                    source: source
                )
            }
            let partial = L2CAPFragments(start: bytes, frame: ctx.frameNumber)
            state.put(partial, key)
            showBytes(payload, &ctx)
            ctx.setInfo("ACL fragment (start, \(partial.progress))")
            return nil
        }

        guard var partial = state.take(key) else {
            showBytes(payload, &ctx)
            ctx.expert(.warning, "ACL continuation fragment without a start fragment; discarded", range, source: source)
            ctx.setInfo("ACL fragment (continuation, no start)")
            return nil
        }
        let bytes = payload.remainingSlice
        guard partial.bytes.count + bytes.count <= L2CAPFragments.maximumPDU else {
            showBytes(payload, &ctx)
            ctx.expert(
                .warning,
                "Limit reached: L2CAP PDU started in frame \(partial.startFrame) would exceed \(L2CAPFragments.maximumPDU) bytes; discarded",
                range,
                source: source
            )
            ctx.setInfo("ACL fragment (continuation, over the size limit)")
            return nil
        }
        guard state.buffered + partial.bytes.count + bytes.count <= HCIState.maximumBuffered else {
            showBytes(payload, &ctx)
            ctx.expert(
                .warning,
                "Limit reached: \(HCIState.maximumBuffered) bytes of incomplete L2CAP PDUs; the one started in frame \(partial.startFrame) is discarded",
                range,
                source: source
            )
            ctx.setInfo("ACL fragment (continuation, over the reassembly budget)")
            return nil
        }
        partial.append(bytes)
        guard partial.isComplete, let expected = partial.expected else {
            state.put(partial, key)
            showBytes(payload, &ctx)
            ctx.setInfo("ACL fragment (continuation, \(partial.progress))")
            return nil
        }
        if partial.bytes.count > expected {
            ctx.expert(
                .warning,
                "ACL fragments carry \(partial.bytes.count - expected) bytes beyond the L2CAP length",
                range,
                source: source
            )
        }
        let a = f.acl
        ctx.tree.add(a[.fragmentCount], .unsigned(UInt64(partial.fragments)), range, source: source)
        ctx.tree.add(a[.reassembledLength], .unsigned(UInt64(partial.bytes.count)), range, source: source)
        ctx.setInfo("ACL Data, reassembled from \(partial.fragments) fragments")
        let pdu = partial.bytes
        let src = ctx.tree.addSource(pdu, name: "Reassembled L2CAP")
        return ByteReader(pdu, source: src)
    }
}

/// SCO data packets (H4 type 3).
struct HCISCOPacket: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let c = f.sco
        let (word, range) = try HCIPacket.openData(f, 3, c.layer, handle: c[.chandle], &r, &ctx)
        ctx.tree.add(c[.packetStatus], .unsigned(UInt64((word >> 12) & 0x3)), range, source: r.source)
        let length = try ctx.addUInt8(c[.length], &r)
        HCIPacket.dataInfo(.sco, handle: word & 0x0FFF, &ctx)
        var data = try HCIPacket.parameters(Int(length), &r, &ctx)
        ctx.addRest(ctx.core[.data], &data)
        ctx.tree.close()
    }
}

/// ISO data packets (H4 type 5): the header, and for a first or complete fragment the ISO data
/// load header (timestamp, sequence number, SDU length).
struct HCIISOPacket: Dissector {
    let f: HCIFieldIDs

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let c = f.iso
        let (word, range) = try HCIPacket.openData(f, 5, c.layer, handle: c[.chandle], &r, &ctx)
        let handle = word & 0x0FFF
        let pb = (word >> 12) & 0x3
        let ts = (word >> 14) & 0x1
        ctx.tree.add(c[.pbFlag], .unsigned(UInt64(pb)), range, source: r.source)
        ctx.tree.add(c[.tsFlag], .unsigned(UInt64(ts)), range, source: r.source)
        let ls = r.offset
        let length = try r.readUInt16() & 0x3FFF
        ctx.tree.add(c[.dataLength], .unsigned(UInt64(length)), ls..<r.offset, source: r.source)
        HCIPacket.dataInfo(.iso, handle: handle, &ctx)
        var load = try HCIPacket.parameters(Int(length), &r, &ctx)
        if pb == 0 || pb == 2 {
            let d = f.isoData
            ctx.tree.open(d.layer, .none, load.offset..<(load.offset + load.remaining), source: load.source)
            if ts != 0 { try ctx.addUInt32(d[.timestamp], &load) }
            try ctx.addUInt16(d[.packetSeqNum], &load)
            let ss = load.offset
            let sdu = try load.readUInt16()
            ctx.tree.add(d[.sduLength], .unsigned(UInt64(sdu & 0x0FFF)), ss..<load.offset, source: load.source)
            ctx.tree.add(d[.statusFlag], .unsigned(UInt64(sdu >> 14)), ss..<load.offset, source: load.source)
            ctx.tree.close()
        }
        ctx.addRest(ctx.core[.data], &load)
        ctx.tree.close()
    }
}
