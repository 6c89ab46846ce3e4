@_spi(Feeding) public import BLEInspectCore

/// Feeds PDUs straight into one of the registry's dispatch tables, as the layer below would,
/// keeping one capture state across calls. The frame's bytes are the PDU, so ranges of source 0
/// index it; the n-th PDU fed is frame n with timestamp n seconds unless told otherwise.
public final class PDUFeeder {
    public let registry: DissectorRegistry
    public let state: CaptureState
    /// How many PDUs have been fed.
    public private(set) var count = 0

    public init(registry: DissectorRegistry, state: CaptureState = CaptureState()) {
        self.registry = registry
        self.state = state
    }

    /// Dissects `bytes` handed to `table` under `key` with `packet` set. The frame's controller is
    /// that of `packet.connection` (0 without one).
    @discardableResult
    public func feed(
        _ bytes: [UInt8],
        to table: TableID,
        key: DissectorKey,
        packet: PacketInfo = PacketInfo(),
        direction: Direction,
        kind: FrameKind = .aclData,
        number: Int? = nil,
        time: Timestamp? = nil
    ) -> FrameSnapshot {
        count += 1
        let frame = CapturedFrame(
            number: number ?? count,
            timestamp: time ?? Timestamp(seconds: Int64(count), nanoseconds: 0, precision: .microseconds),
            direction: direction,
            controllerIndex: packet.connection?.controller ?? 0,
            kind: kind,
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
        var ctx = DissectionContext(
            registry: registry,
            state: state,
            tree: ProtocolTree(),
            frame: frame,
            wantsInfo: true
        )
        ctx.packet = packet
        var reader = ByteReader(bytes)
        ctx.feed(table, key, &reader)
        return FrameSnapshot(
            frame: frame,
            nodes: ctx.tree.nodes,
            sources: ctx.tree.sources,
            texts: ctx.tree.texts,
            info: ctx.tree.info,
            registry: registry,
            cid: packet.cid,
            openDepth: ctx.tree.depth
        )
    }

    /// Dissects an L2CAP payload on channel `cid` of `connection` (controller 0) as the L2CAP
    /// layer hands it on: to `btl2cap.psm` under `psm` when there is one, else to `btl2cap.cid`.
    @discardableResult
    public func channel(
        _ bytes: [UInt8],
        _ direction: Direction,
        connection: UInt16,
        cid: UInt16,
        psm: UInt16?
    ) -> FrameSnapshot {
        let packet = PacketInfo.on(handle: connection, cid: cid, psm: psm)
        if let psm {
            return feed(
                bytes,
                to: StandardTables.l2capPSM.id,
                key: DissectorKey(psm),
                packet: packet,
                direction: direction
            )
        }
        return feed(bytes, to: StandardTables.l2capCID.id, key: DissectorKey(cid), packet: packet, direction: direction)
    }

    /// Forgets a connection, as Disconnection Complete does.
    public func close(_ handle: UInt16, controller: UInt16 = 0) {
        state.closeConnection(ConnectionKey(controller: controller, handle: handle))
    }
}

extension PacketInfo {
    /// Packet info for data on connection `handle` of `controller`, on channel `cid` and `psm`.
    public static func on(handle: UInt16, controller: UInt16 = 0, cid: UInt16? = nil, psm: UInt16? = nil) -> PacketInfo
    {
        var packet = PacketInfo()
        packet.connection = ConnectionKey(controller: controller, handle: handle)
        packet.cid = cid
        packet.psm = psm
        return packet
    }
}
