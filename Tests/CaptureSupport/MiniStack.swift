public import BLEDissectorTestSupport
@_spi(Feeding) public import BLEInspectCore

/// A stand-in for the HCI and L2CAP layers, for tests on whole captures: it reassembles ACL
/// fragments into L2CAP PDUs and hands those on fixed channels 4, 6 and 7 to the registry's
/// `btl2cap.cid` table and those on BR/EDR channels of PSM 0x001F to `btl2cap.psm`, and closes
/// connections at Disconnection Complete. Frames without such a PDU give an empty snapshot.
public enum MiniStack {
    private struct Key: Hashable {
        let controller: UInt16
        let handle: UInt16
        let direction: Direction
    }

    private struct Link: Hashable {
        let controller: UInt16
        let handle: UInt16
    }

    private struct ChannelKey: Hashable {
        let link: Link
        let cid: UInt16
    }

    /// One snapshot a frame of the capture at `path`, with `cid` set where a PDU was handed on.
    public static func dissect(_ path: String, registry: DissectorRegistry) -> [FrameSnapshot] {
        let frames = CaptureFiles.readAll(path).frames
        let state = CaptureState()
        var partial: [Key: [UInt8]] = [:]
        // BR/EDR channels on PSM 0x001F (ATT), learned from Connection Request/Response.
        var requested: [Link: [UInt8: UInt16]] = [:]
        var attChannels: Set<ChannelKey> = []
        var out: [FrameSnapshot] = []
        for frame in frames {
            var ctx = DissectionContext(
                registry: registry,
                state: state,
                tree: ProtocolTree(),
                frame: frame,
                wantsInfo: true
            )
            var cidSeen: UInt16? = nil
            let controller = frame.controllerIndex ?? 0
            let b = frame.bytes
            if frame.kind == .hciEvent, b.count >= 6, b[0] == 0x05, b[2] == 0x00 {
                let handle = UInt16(b[3]) | UInt16(b[4] & 0x0F) << 8
                state.closeConnection(ConnectionKey(controller: controller, handle: handle))
                attChannels = attChannels.filter { $0.link != Link(controller: controller, handle: handle) }
            }
            // Handle 0x0EDC carries Qualcomm debug data, not L2CAP (shared captures README).
            let handle = b.count >= 2 ? UInt16(b[0]) | UInt16(b[1] & 0x0F) << 8 : 0
            if frame.kind == .aclData, b.count >= 4, handle != 0x0EDC {
                let link = Link(controller: controller, handle: handle)
                let key = Key(controller: controller, handle: handle, direction: frame.direction)
                let data = Array(b.dropFirst(4))
                var pdu: [UInt8]? = data
                if (b[1] >> 4) & 0x03 == 0x01 { pdu = partial[key].map { $0 + data } }
                partial[key] = nil
                if let pdu {
                    let length = pdu.count >= 2 ? Int(pdu[0]) | Int(pdu[1]) << 8 : Int.max
                    if pdu.count >= 4, pdu.count - 4 >= length {
                        let cid = UInt16(pdu[2]) | UInt16(pdu[3]) << 8
                        let payload = Array(pdu[4..<(4 + length)])
                        if cid == 0x0001 {
                            learnChannels(payload, link, &requested, &attChannels)
                        }
                        let fixed = [0x0004, 0x0006, 0x0007].contains(cid)
                        let att = attChannels.contains(ChannelKey(link: link, cid: cid))
                        if fixed || att {
                            let source = ctx.tree.addSource(payload, name: "L2CAP")
                            var reader = ByteReader(payload, source: source)
                            ctx.packet.connection = ConnectionKey(controller: controller, handle: handle)
                            ctx.packet.cid = cid
                            cidSeen = cid
                            if att {
                                ctx.packet.psm = 0x001F
                                ctx.feed(StandardTables.l2capPSM.id, DissectorKey(0x001F), &reader)
                            } else {
                                ctx.feed(StandardTables.l2capCID.id, DissectorKey(cid), &reader)
                            }
                        }
                    } else if pdu.count < 70_000 {
                        partial[key] = pdu
                    }
                }
            }
            out.append(
                FrameSnapshot(
                    frame: frame,
                    nodes: ctx.tree.nodes,
                    sources: ctx.tree.sources,
                    texts: ctx.tree.texts,
                    info: ctx.tree.info,
                    registry: registry,
                    cid: cidSeen
                )
            )
        }
        return out
    }

    /// Learns BR/EDR channels on PSM 0x001F from signalling commands.
    private static func learnChannels(
        _ commands: [UInt8],
        _ link: Link,
        _ requested: inout [Link: [UInt8: UInt16]],
        _ channels: inout Set<ChannelKey>
    ) {
        var i = 0
        while i + 4 <= commands.count {
            let code = commands[i]
            let id = commands[i + 1]
            let length = Int(commands[i + 2]) | Int(commands[i + 3]) << 8
            let body = Array(commands[(i + 4)..<min(commands.count, i + 4 + length)])
            if code == 0x02, body.count >= 4, UInt16(body[0]) | UInt16(body[1]) << 8 == 0x001F {
                requested[link, default: [:]][id] = UInt16(body[2]) | UInt16(body[3]) << 8
            }
            if code == 0x03, body.count >= 6, body[4] == 0, body[5] == 0, let scid = requested[link]?[id] {
                channels.insert(ChannelKey(link: link, cid: scid))
                channels.insert(ChannelKey(link: link, cid: UInt16(body[0]) | UInt16(body[1]) << 8))
            }
            i += 4 + length
        }
    }
}
