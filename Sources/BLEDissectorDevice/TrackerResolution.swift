import BLECrypto
import BLEInspectCore

/// An IRK a connection's peer sent in SMP Identity Information, and the frame that carried it.
struct PendingIRK {
    var irk: Value128
    var frame: Int
}

/// Resolvable private addresses resolved with IRKs (docs/DEVICES.md): each address is checked
/// against each known key once, when the tracker first sees it (or first sees it after a key
/// was learned); a resolved address is linked to the key's identity address as the controller's
/// and SMP's links are.
extension TrackerCore {
    /// Checks the address in `slot` against the keys it was not checked against; links it to
    /// the identity of the key that resolves it. Out of line: the lookups that call it stay small.
    @inline(never)
    mutating func resolve(_ ctx: inout DissectionContext, slot: Int32, span: NodeSpan) {
        let i = Int(slot)
        let record = table.records[i]
        // An address of unknown type is checked once a frame gives its type.
        guard record.addressType != AddressType.unknown, !resolving else { return }
        table[slot].checkedKeys = UInt16(truncatingIfNeeded: resolver.count)
        // An address already linked (by the controller, by SMP) needs no key.
        guard record.addressType == AddressType.random, record.identity == nil,
            let k = resolver.resolve(record.address, from: Int(record.checkedKeys))
        else { return }
        resolving = true
        link(&ctx, slot: slot, identity: resolver.keys[k].identity, span: span)
        resolving = false
        if table.records[i].address == record.address { table[slot].resolvedBy = Int16(truncatingIfNeeded: k) }
    }

    /// Keeps the IRK of SMP Identity Information the peer sent on connection `key` until the
    /// Identity Address Information that follows it; `frame` is the frame's bytes.
    mutating func keepIRK(_ ctx: inout DissectionContext, _ key: ConnectionKey, _ frame: ByteReader) {
        let span = facts.smpKeySpan
        guard span.length == 16, span.start >= 0,
            pendingIRKs[key] != nil || pendingIRKs.count < DeviceState.maximumConnections
        else { return }
        let range = span.range
        let bytes: [UInt8]?
        if span.source == 0 {
            bytes = frame.withRemainingBytes { all in range.upperBound <= all.count ? Array(all[range]) : nil }
        } else {
            let all = ctx.tree.bytes(of: span.source, frameBytes: [])
            bytes = range.upperBound <= all.count ? Array(all[range]) : nil
        }
        guard let bytes, let irk = try? Value128(lsoFirst: bytes) else { return }
        pendingIRKs[key] = PendingIRK(irk: irk, frame: ctx.frameNumber)
    }

    /// The peer's Identity Address Information on connection `key`: with the IRK it sent before,
    /// a key for the addresses seen from now on.
    mutating func learnIRK(_ key: ConnectionKey, identity: TypedAddress) {
        guard let pending = pendingIRKs.removeValue(forKey: key) else { return }
        resolver.add(
            irk: pending.irk,
            identity: identity,
            source: "SMP Identity Information in frame \(pending.frame)"
        )
    }

    /// `device.irk_source` of the device in `slot`, when a key resolved its address.
    @inline(never)
    func addIRKSource(
        _ f: Fields<DeviceField>,
        _ ctx: inout DissectionContext,
        slot: Int32,
        _ range: Range<Int>,
        source: Int
    ) {
        let k = Int(table.records[Int(slot)].resolvedBy)
        guard k >= 0, k < resolver.keys.count else { return }
        ctx.tree.add(f[.irkSource], text: resolver.keys[k].source, range, source: source)
    }
}
