import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation

/// Frame-by-frame comparison of btatt.opcode, btatt.handle and btsmp.opcode with tshark.
enum TsharkComparison {
    static let handleFields = ["btatt.handle"]

    struct Mismatch: CustomStringConvertible {
        let frame: Int
        let field: String
        let ours: String
        let theirs: String
        let kind: Kind?

        var description: String {
            "#\(frame) \(field): bleinspect [\(ours)] tshark [\(theirs)]" + (kind.map { " (\($0))" } ?? "")
        }
    }

    /// The kinds of legitimate disagreement, each explained where it is recognised.
    enum Kind: String, CustomStringConvertible {
        /// tshark 4.0 does not know the PDUs added with EATT in Core 5.2 (0x20/0x21 Read Multiple
        /// Variable Request/Response, 0x23 Multiple Handle Value Notification): it shows them as
        /// "Unknown" with no parameters, so without handles.
        case eattOpcodeUnknownToTshark
        /// tshark 4.0 decodes SMP only on channel 6; bleinspect also on channel 7 (BR/EDR SMP).
        case smpOnBREDR
        /// Android logs from Qualcomm controllers carry debug data on ACL handle 0x0EDC; tshark
        /// decodes it as L2CAP (so some of it as ATT or SMP), bleinspect does not.
        case vendorDebugHandle

        var description: String { rawValue }
    }

    static func hexList(_ values: [UInt64], digits: Int) -> [String] {
        values.map { v in
            let s = String(v, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, digits - s.count)) + s
        }
    }

    static func ourHandles(_ s: FrameSnapshot) -> [String] {
        let ids = Set(handleFields.compactMap { s.registry.field(named: $0) })
        return hexList(s.nodes.filter { ids.contains($0.field) }.compactMap(\.value.unsignedValue), digits: 4)
    }

    static func split(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: ",").map(String.init)
    }

    /// Compares `snaps` (one per frame of `path`) with tshark's reading of `path`.
    static func compare(_ path: String, _ snaps: [FrameSnapshot]) throws -> (
        frames: Int, atts: Int, mismatches: [Mismatch]
    ) {
        let rows = try Run.tsharkFields(path, ["frame.number", "btatt.opcode", "btatt.handle", "btsmp.opcode"])
        var mismatches: [Mismatch] = []
        var atts = 0
        guard rows.count == snaps.count else {
            return (
                rows.count, 0,
                [Mismatch(frame: 0, field: "frames", ours: "\(snaps.count)", theirs: "\(rows.count)", kind: nil)]
            )
        }
        for (s, row) in zip(snaps, rows) where row.count >= 4 {
            let n = s.frame.number
            let b = s.frame.bytes
            let vendor = s.frame.kind == .aclData && b.count >= 2 && UInt16(b[0]) | UInt16(b[1] & 0x0F) << 8 == 0x0EDC
            let ourOpcodes = hexList(s.uints("btatt.opcode"), digits: 2)
            let theirOpcodes = split(row[1])
            if !ourOpcodes.isEmpty { atts += 1 }
            if ourOpcodes != theirOpcodes {
                mismatches.append(
                    Mismatch(
                        frame: n,
                        field: "btatt.opcode",
                        ours: ourOpcodes.joined(separator: ","),
                        theirs: row[1],
                        kind: vendor ? .vendorDebugHandle : nil
                    )
                )
            }
            let ours = ourHandles(s)
            let theirs = split(row[2])
            if ours != theirs {
                var kind: Kind? = nil
                let op = s.uints("btatt.opcode").first ?? 0
                if [0x20, 0x21, 0x23].contains(op), theirs.isEmpty { kind = .eattOpcodeUnknownToTshark }
                if vendor { kind = .vendorDebugHandle }
                mismatches.append(
                    Mismatch(
                        frame: n,
                        field: "btatt.handle",
                        ours: ours.joined(separator: ","),
                        theirs: row[2],
                        kind: kind
                    )
                )
            }
            let ourSMP = hexList(s.uints("btsmp.opcode"), digits: 2)
            let theirSMP = split(row[3])
            if ourSMP != theirSMP {
                let cid = s.cid ?? s.uints("btl2cap.cid").last.map { UInt16(truncatingIfNeeded: $0) }
                let kind: Kind? = vendor ? .vendorDebugHandle : theirSMP.isEmpty && cid == 7 ? .smpOnBREDR : nil
                mismatches.append(
                    Mismatch(
                        frame: n,
                        field: "btsmp.opcode",
                        ours: ourSMP.joined(separator: ","),
                        theirs: row[3],
                        kind: kind
                    )
                )
            }
        }
        return (rows.count, atts, mismatches)
    }

    /// The shared captures that hold HCI traffic (not over-the-air sniffer frames).
    static func sharedHCICaptures() -> [ManifestEntry] {
        ManifestEntry.all().filter { e in
            e.packetCount > 0
                && (e.linkType.contains("H4") || e.linkType.contains("monitor") || e.linkType.contains("PacketLogger"))
        }
    }
}
