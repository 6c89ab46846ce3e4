import BLEInspectCore

/// What the HCI module remembers across a capture: the connections it saw open (for the
/// vendor-debug handle check) and the L2CAP PDUs being reassembled from ACL fragments.
/// Every map is bounded.
final class HCIState: ConnectionScopedState {
    struct ReassemblyKey: Hashable {
        let controller: UInt16
        let handle: UInt16
        let direction: UInt8
    }

    /// The most partial PDUs tracked at once, over all connections (one per connection and
    /// direction at most).
    static let maximumPartials = 256
    /// The most bytes held in partial PDUs, over all connections.
    static let maximumBuffered = 4 << 20
    /// The most connections remembered as open.
    static let maximumConnections = CaptureState.maximumConnections

    /// The L2CAP PDUs whose fragments are still arriving. Change it through `take` and `put`,
    /// which keep `buffered` right.
    private(set) var partials: [ReassemblyKey: L2CAPFragments] = [:]
    /// Bytes held in `partials`.
    private(set) var buffered = 0
    /// Open connections, with the frame that opened them.
    var open: [ConnectionKey: Int] = [:]

    func connectionClosed(_ key: ConnectionKey) {
        open[key] = nil
        guard !partials.isEmpty else { return }
        for k in partials.keys where k.controller == key.controller && k.handle == key.handle {
            _ = take(k)
        }
    }

    /// Removes and returns the partial PDU under `key`.
    func take(_ key: ReassemblyKey) -> L2CAPFragments? {
        // Most ACL packets are whole PDUs, with nothing being reassembled: no hashing then.
        guard !partials.isEmpty, let p = partials.removeValue(forKey: key) else { return nil }
        buffered -= p.bytes.count
        return p
    }

    /// Stores a partial PDU under `key` (where there is none).
    func put(_ partial: L2CAPFragments, _ key: ReassemblyKey) {
        if let old = partials.updateValue(partial, forKey: key) { buffered -= old.bytes.count }
        buffered += partial.bytes.count
    }

    /// The partial PDU started longest ago.
    func oldestPartial() -> ReassemblyKey? {
        partials.min { $0.value.startFrame < $1.value.startFrame }?.key
    }

    static func of(_ ctx: DissectionContext) -> HCIState {
        ctx.state.module(HCIState.self) { HCIState() }
    }
}

enum HCIConnections {
    /// Records a connection opened by a connection-complete event with status 0.
    ///
    /// The capture-wide table (`CaptureState.openConnection`) cannot be filled from this module
    /// yet: `ConnectionInfo` has no public initializer. The HCI module keeps its own record
    /// meanwhile, which is what the vendor-debug check reads.
    static func opened(
        _ ctx: inout DissectionContext,
        handle: UInt16,
        peer: BDAddr,
        peerAddressType: UInt8,
        role: UInt8,
        at range: Range<Int>,
        source: Int
    ) {
        let key = ConnectionKey(controller: ctx.controller, handle: handle)
        let state = HCIState.of(ctx)
        // A handle reused without a disconnection: forget what belonged to the old connection.
        if let earlier = state.open[key] ?? ctx.state.connections[key]?.openedInFrame {
            ctx.expert(
                .note,
                "Connection handle \(HCIPacket.hex16(handle)) reused without a disconnection: the connection opened in frame \(earlier) is forgotten",
                range,
                source: source
            )
            ctx.state.closeConnection(key)
            state.open[key] = nil
        }
        if state.open.count >= HCIState.maximumConnections,
            let oldest = state.open.min(by: { $0.value < $1.value })
        {
            ctx.expert(
                .warning,
                "Limit reached: \(HCIState.maximumConnections) open connections; the one opened in frame \(oldest.value) (handle \(HCIPacket.hex16(oldest.key.handle))) is forgotten",
                range,
                source: source
            )
            ctx.state.closeConnection(oldest.key)
            state.open[oldest.key] = nil
        }
        state.open[key] = ctx.frameNumber
        ctx.state.openConnection(
            key,
            ConnectionInfo(peer: peer, peerAddressType: peerAddressType, role: role, openedInFrame: ctx.frameNumber)
        )
    }

    /// Closes a connection on Disconnection Complete: the capture-wide table and every module's
    /// per-connection state (this module's reassembly buffers included) forget it.
    static func closed(_ ctx: inout DissectionContext, handle: UInt16) {
        let key = ConnectionKey(controller: ctx.controller, handle: handle)
        _ = HCIState.of(ctx)  // made now if need be, so that it is told too
        ctx.state.closeConnection(key)
    }

    static func isOpen(_ ctx: DissectionContext, handle: UInt16) -> Bool {
        let key = ConnectionKey(controller: ctx.controller, handle: handle)
        return ctx.state.connections[key] != nil || HCIState.of(ctx).open[key] != nil
    }
}
