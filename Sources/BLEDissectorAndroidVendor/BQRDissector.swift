import BLEInspectCore

/// Decodes the vendor-specific HCI event (0xFF) as Android's controllers send it: a sub-event
/// code, then its parameters. Sub-event 0x58 is the Bluetooth Quality Report; other sub-events
/// are vendor data, shown as data.
///
/// A report is the report ID, then, for the reports Android documents (`BQRNames.reports`), a
/// common part of 47 bytes (`common`), and from version 5 the remote address and a calibration
/// count (`version5`); what follows, or a report of another ID, is `bqr.parameters`. A report cut
/// short inside the common part is truncated.
struct BQRDissector: Dissector {
    static let subevent: UInt8 = 0x58

    let f: Fields<BQRField>
    let common: FieldLayout
    let version5: FieldLayout

    init(f: Fields<BQRField>) {
        self.f = f
        common = FieldLayout([
            .u8(f[.packetType]), .u16(f[.connectionHandle]), .u8(f[.role]), .u8(f[.txPowerLevel]), .i8(f[.rssi]),
            .i8(f[.snr]), .u8(f[.unusedAFHChannelCount]), .u8(f[.afhSelectUnidealChannelCount]), .u16(f[.lsto]),
            .u32(f[.piconetClock]), .u32(f[.retransmissionCount]), .u32(f[.noRXCount]), .u32(f[.nakCount]),
            .u32(f[.lastTXAckTimestamp]), .u32(f[.flowOffCount]), .u32(f[.lastFlowOnTimestamp]),
            .u32(f[.bufferOverflowBytes]), .u32(f[.bufferUnderflowBytes]),
        ])
        version5 = FieldLayout([.address(f[.remoteAddress]), .u8(f[.calibrationFailedItemCount])])
    }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        guard r.peekUInt8() == Self.subevent else {
            if !r.isAtEnd {
                ctx.tree.add(ctx.core[.data], .bytes, r.offset..<(r.offset + r.remaining), source: r.source)
            }
            return
        }
        let src = r.source
        ctx.tree.open(f.layer, .none, r.offset..<(r.offset + r.remaining), source: src)
        defer { ctx.tree.close() }
        var at = r.offset
        ctx.tree.add(f[.subeventCode], .unsigned(UInt64(try r.readUInt8())), at..<r.offset, source: src)
        at = r.offset
        let report = try r.readUInt8()
        ctx.tree.add(f[.reportID], .unsigned(UInt64(report)), at..<r.offset, source: src)
        ctx.appendInfo("Bluetooth Quality Report: " + (BQRNames.reports.lookup(UInt64(report)) ?? "ID \(report)"))
        if BQRNames.reports.lookup(UInt64(report)) != nil {
            var run = LayoutRun()
            var host = PlainLayout()
            try run.run(common, &r, &ctx, host: &host)
            if r.remaining >= 7 { try run.run(version5, &r, &ctx, host: &host) }
        }
        if !r.isAtEnd {
            let rest = r.offset..<(r.offset + r.remaining)
            ctx.tree.add(f[.parameters], .bytes, rest, source: src)
            _ = r.readRest()
        }
    }
}
