import BLECaptureTestSupport
import BLEDissectorL2CAP
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation

/// The standard registry, built once for these tests.
let l2capRegistry = Dissect.registry()

extension PDUFeeder {
    /// A feeder over the registry these tests share.
    static func l2cap() -> PDUFeeder { PDUFeeder(registry: l2capRegistry) }

    /// Dissects one complete L2CAP PDU as the HCI module hands it on: a reader over the PDU,
    /// `packet.connection` set, the frame's direction. The frame's bytes are the PDU itself, so
    /// ranges of source 0 are PDU offsets.
    @discardableResult
    func pdu(
        _ bytes: [UInt8],
        _ direction: Direction,
        handle: UInt16 = 0x0040,
        controller: UInt16 = 0,
        number: Int? = nil,
        time: Timestamp? = nil
    ) -> FrameSnapshot {
        feed(
            bytes,
            to: StandardTables.l2cap.id,
            key: DissectorKey(0),
            packet: .on(handle: handle, controller: controller),
            direction: direction,
            number: number,
            time: time
        )
    }

    @discardableResult
    func pdu(_ hex: String, _ direction: Direction, handle: UInt16 = 0x0040) -> FrameSnapshot {
        pdu(Hex.bytes(hex), direction, handle: handle)
    }

    /// Replays PDUs reassembled from a capture; returns the snapshots by frame number.
    func replay(_ events: [ACLReplay.Event]) -> [Int: FrameSnapshot] {
        var out: [Int: FrameSnapshot] = [:]
        for event in events {
            switch event {
            case .pdu(let frame, let handle, let bytes):
                out[frame.number] = pdu(
                    bytes,
                    frame.direction,
                    handle: handle,
                    controller: frame.controllerIndex ?? 0,
                    number: frame.number,
                    time: frame.timestamp
                )
            case .closed(let controller, let handle):
                close(handle, controller: controller)
            }
        }
        return out
    }
}

/// L2CAP PDU builders.
enum PDU {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }

    /// A basic L2CAP frame.
    static func frame(cid: Int, _ payload: [UInt8]) -> [UInt8] { le16(payload.count) + le16(cid) + payload }

    /// A signalling command.
    static func command(_ code: UInt8, _ ident: UInt8, _ data: [UInt8]) -> [UInt8] {
        [code, ident] + le16(data.count) + data
    }

    /// An LE signalling PDU with one command.
    static func le(_ code: UInt8, _ ident: UInt8, _ values: [Int]) -> [UInt8] {
        frame(cid: 5, command(code, ident, values.flatMap(le16)))
    }

    /// A K-frame: with `sduLength`, the first of an SDU.
    static func kframe(cid: Int, sduLength: Int? = nil, _ data: [UInt8]) -> [UInt8] {
        frame(cid: cid, (sduLength.map(le16) ?? []) + data)
    }
}

/// A minimal ACL reassembler over a capture's frames, standing in for the HCI module: complete
/// L2CAP PDUs per (handle, direction), and connection closings.
enum ACLReplay {
    enum Event {
        case pdu(CapturedFrame, handle: UInt16, bytes: [UInt8])
        case closed(controller: UInt16, handle: UInt16)
    }

    struct Key: Hashable {
        var controller: UInt16
        var handle: UInt16
        var direction: Direction
    }

    static func events(_ frames: [CapturedFrame], skipHandles: Set<UInt16> = [0x0EDC], drop: Set<Int> = []) -> [Event] {
        var buffers: [Key: [UInt8]] = [:]
        var out: [Event] = []
        for frame in frames where !drop.contains(frame.number) {
            let b = frame.bytes
            if frame.kind == .hciEvent, b.count >= 6, b[0] == 0x05, b[2] == 0 {
                out.append(
                    .closed(controller: frame.controllerIndex ?? 0, handle: (UInt16(b[3]) | UInt16(b[4]) << 8) & 0x0FFF)
                )
                continue
            }
            guard frame.kind == .aclData, b.count >= 4 else { continue }
            let hf = UInt16(b[0]) | UInt16(b[1]) << 8
            let handle = hf & 0x0FFF
            let pb = (hf >> 12) & 3
            guard !skipHandles.contains(handle) else { continue }
            let key = Key(controller: frame.controllerIndex ?? 0, handle: handle, direction: frame.direction)
            let data = Array(b.dropFirst(4))
            if pb == 1 {
                guard buffers[key] != nil else { continue }
                buffers[key, default: []] += data
            } else {
                buffers[key] = data
            }
            guard let buf = buffers[key], buf.count >= 4 else { continue }
            let length = Int(buf[0]) | Int(buf[1]) << 8
            if buf.count >= length + 4 {
                out.append(.pdu(frame, handle: handle, bytes: buf))
                buffers[key] = nil
            }
        }
        return out
    }
}

enum CaptureData {
    /// The SDUs of le-coc.sdus.json: (direction, bytes).
    static func cocSDUs() throws -> [(String, [UInt8])] {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc.sdus.json")))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: String]] ?? []
        return list.map { ($0["direction"] ?? "", Hex.bytes($0["hex"] ?? "")) }
    }
}
