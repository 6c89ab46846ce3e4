import BLECaptureTestSupport
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// Frame-by-frame agreement with tshark on every HCI capture: the project's own Bumble
/// recordings and the real-world ones in ../shared/captures (btsnoop, PacketLogger, and pcap /
/// pcapng with link type 201).
///
/// Compared: hci_h4.type, bthci_cmd.opcode, bthci_evt.code, bthci_evt.le_meta_subevent,
/// bthci_acl.chandle, and for advertising reports bthci_evt.bd_addr and bthci_evt.rssi (every
/// report of each event, in order). Disagreements are sorted into kinds; the legitimate ones are
/// listed in `Exception` with the reason, and any other kind fails the test.
@Suite("HCI agrees with tshark", .enabled(if: Run.tshark != nil))
struct HCITsharkAgreementTests {
    /// The HCI captures to compare.
    static func captures() -> [String] {
        var paths = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map(\.path)
        for entry in ManifestEntry.all() where entry.packetCount > 0 {
            let hci =
                entry.format == "btsnoop" || entry.format == "pklg" || entry.linkType.hasPrefix("LINKTYPE 201")
            if hci { paths.append(entry.url.path) }
        }
        return paths
    }

    /// Disagreements that are tshark's, or deliberate, with the reason.
    enum Exception: String, CaseIterable {
        /// tshark's PacketLogger and Linux-monitor dissectors carry the packet type in their own
        /// header field and add no hci_h4 layer; bleinspect shows the same HCI type in hci_h4.type
        /// for every HCI packet, whatever the file format.
        case noH4LayerInTshark = "tshark has no hci_h4 layer for this encapsulation"
        /// Qualcomm controllers on Android log vendor debug data as ACL on handle 0x0EDC with no
        /// connection; tshark decodes it as L2CAP, bleinspect shows it as vendor data.
        case vendorDebugHandle = "ACL handle 0x0EDC vendor debug data: tshark decodes it as L2CAP"
    }

    static let fields = [
        "hci_h4.type", "bthci_cmd.opcode", "bthci_evt.code", "bthci_evt.le_meta_subevent", "bthci_acl.chandle",
        "bthci_evt.bd_addr", "bthci_evt.rssi", "btl2cap.cid",
    ]

    static let registry = Dissect.registry()

    /// tshark's list of integers ("0x0e", "12", "-50", several separated by commas).
    static func integers(_ text: String) -> [Int64] {
        text.split(separator: ",").compactMap { part in
            let s = part.trimmingCharacters(in: .whitespaces)
            if s.hasPrefix("0x") { return UInt64(s.dropFirst(2), radix: 16).map { Int64(bitPattern: $0) } }
            return Int64(s)
        }
    }

    @Test("frame by frame, every HCI capture", arguments: captures())
    func agreement(path: String) throws {
        let frames = CaptureFiles.readAll(path).frames
        let rows = try Run.tsharkFields(path, Self.fields)
        try #require(rows.count == frames.count, "\(path): tshark has \(rows.count) frames, bleinspect \(frames.count)")
        let registry = Self.registry
        func id(_ name: String) -> FieldID? { registry.field(named: name) }
        let ids = Self.fields.dropLast().map(id)

        var kinds: [String: [Int]] = [:]
        var exceptions: [Exception: Int] = [:]
        var compared = 0
        var reports = 0
        var engine = DissectionEngine(registry: registry)
        for (frame, row) in zip(frames, rows) {
            let (values, info) = engine.dissect(frame, wantsInfo: true) { tree -> ([[FieldValue]], String) in
                (ids.map { id in tree.nodes.filter { $0.field == id }.map(\.value) }, tree.info)
            }
            guard frame.kind.isHCI else { continue }
            compared += 1
            let theirs =
                row.count >= Self.fields.count ? row : row + Array(repeating: "", count: Self.fields.count - row.count)
            func ours(_ i: Int) -> [Int64] {
                values[i].compactMap { v in
                    switch v {
                    case .unsigned(let u): Int64(bitPattern: u)
                    case .signed(let s): s
                    default: nil
                    }
                }
            }
            // hci_h4.type
            if Self.integers(theirs[0]).isEmpty, !ours(0).isEmpty {
                exceptions[.noH4LayerInTshark, default: 0] += 1
            } else if ours(0) != Self.integers(theirs[0]) {
                kinds["hci_h4.type: bleinspect \(ours(0)) vs tshark \(theirs[0])", default: []].append(frame.number)
            }
            for i in 1...4 where ours(i) != Self.integers(theirs[i]) {
                kinds["\(Self.fields[i]) differs", default: []].append(frame.number)
            }
            if info == "Vendor debug data (handle 0x0EDC)" {
                if theirs[7].isEmpty {
                    kinds["0x0EDC vendor data that tshark does not take for L2CAP", default: []].append(frame.number)
                } else {
                    exceptions[.vendorDebugHandle, default: 0] += 1
                }
            }
            // Advertising reports: every report's address and RSSI, in order.
            let subevent = ours(3).first ?? -1
            if [0x02, 0x0B, 0x0D].contains(subevent) {
                let addresses = values[5].compactMap { v -> String? in
                    if case .address(let a) = v { a.description.lowercased() } else { nil }
                }
                let theirAddresses = theirs[5].split(separator: ",").map(String.init)
                reports += addresses.count
                if addresses != theirAddresses {
                    kinds["advertising report bd_addr differs (subevent \(subevent))", default: []].append(frame.number)
                }
                if ours(6) != Self.integers(theirs[6]) {
                    kinds["advertising report rssi differs (subevent \(subevent))", default: []].append(frame.number)
                }
            }
        }
        let name = URL(fileURLWithPath: path).lastPathComponent
        print("\(name): \(compared) HCI frames and \(reports) advertising reports compared")
        for (e, n) in exceptions.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            print("\(name): documented exception, \(n) frames: \(e.rawValue)")
        }
        for (kind, numbers) in kinds.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(name): \(kind) in \(numbers.count) frames, first \(numbers.prefix(5))")
        }
    }
}
