import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// The Bluetooth Quality Report, on the reports of real Android captures and on every prefix of
/// one. tshark 4.0 does not decode the event (it says "Event undecoded"), so the oracle is the
/// rest of the capture as tshark reads it: a report names a connection tshark sees carry ACL data,
/// and the peer address a command of the capture names.
@Suite struct BQRTests {
    /// A version 5 quality monitoring report (a real one, from an Android log): the sub-event, the
    /// report ID, the 47 bytes of the common part, the remote address and the calibration count.
    static let report =
        "58 01 03 04 00 00 0a dc 00 3b 00 40 1f 19 3d 36 03 7f 01 00 00 7f 01 00 00 00 00 00 00 c6 cf 35 03 "
        + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 a0 49 22 56 55 60 00"

    static func event(_ hex: String) -> String {
        let bytes = Hex.bytes(hex)
        return String(format: "ff %02x ", bytes.count) + hex
    }

    @Test("a version 5 quality monitoring report: every parameter, and the summary")
    func monitoring() throws {
        let s = Dissect.frames([Dissect.hci(.hciEvent, Self.event(Self.report))])[0]
        #expect(!s.isMalformed)
        #expect(s.uints("bqr.report_id") == [1])
        #expect(s.uints("bqr.packet_type") == [3])
        #expect(s.uints("bqr.connection_handle") == [0x0004])
        #expect(s.uints("bqr.role") == [0])
        #expect(s.uints("bqr.tx_power_level") == [10])
        #expect(s.ints("bqr.rssi") == [-36])
        #expect(s.ints("bqr.snr") == [0])
        #expect(s.uints("bqr.unused_afh_channel_count") == [59])
        #expect(s.uints("bqr.lsto") == [8000])
        #expect(s.uints("bqr.piconet_clock") == [0x0336_3D19])
        #expect(s.uints("bqr.retransmission_count") == [383])
        #expect(s.uints("bqr.no_rx_count") == [383])
        #expect(s.addresses("bqr.remote_address").map { $0.lowercased() } == ["60:55:56:22:49:a0"])
        #expect(s.uints("bqr.calibration_failed_item_count") == [0])
        #expect(!s.has("bqr.parameters"))
        #expect(s.info.hasSuffix("Bluetooth Quality Report: Quality monitoring"), "\(s.info)")
    }

    @Test("a report of an ID without a known layout keeps its parameters as bytes; another sub-event stays data")
    func unknown() {
        let energy = Dissect.frames([Dissect.hci(.hciEvent, Self.event("58 06 05 00 50 03"))])[0]
        #expect(energy.uints("bqr.report_id") == [6])
        #expect(energy.bytes("bqr.parameters") == [[0x05, 0x00, 0x50, 0x03]])
        #expect(!energy.isMalformed)
        let other = Dissect.frames([Dissect.hci(.hciEvent, Self.event("00 00 10 0a 03"))])[0]
        #expect(!other.has("bqr"))
        #expect(other.bytes("data.data") == [[0x00, 0x00, 0x10, 0x0A, 0x03]])
    }

    @Test("every cut inside the common part is truncated; past it, the version 5 part is optional")
    func prefixes() {
        let bytes = Hex.bytes(Self.report)
        for n in 2..<bytes.count {
            let hex = bytes.prefix(n).map { String(format: "%02x", $0) }.joined(separator: " ")
            let s = Dissect.frames([Dissect.hci(.hciEvent, Self.event(hex))])[0]
            #expect(s.has("bqr.report_id"), "cut to \(n)")
            if n < 2 + 47 {
                #expect(s.expertMessages.contains { $0.hasPrefix("Malformed: packet too short") }, "cut to \(n)")
            } else {
                #expect(!s.isMalformed, "cut to \(n)")
            }
        }
    }

    @Test(
        "on real Android logs: each report names a connection tshark sees, and a peer address the capture names",
        .enabled(if: TestPaths.sharedCapturesAvailable && Run.tshark != nil)
    )
    func realCaptures() throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent("oppo_BT_HCI_2026_0719_110149.cfa").path
        let reports = Dissect.frames(CaptureFiles.readAll(path).frames)
        let withReports = reports.filter { $0.has("bqr.connection_handle") }
        #expect(withReports.count == 26)
        let handles = Set(try Run.tsharkFields(path, ["bthci_acl.chandle"]).flatMap { $0 }.filter { !$0.isEmpty })
        let rows = try Run.tsharkFields(path, ["bthci_cmd.bd_addr", "bthci_evt.bd_addr"])
        let addresses = Set(rows.flatMap { row in row.flatMap { $0.split(separator: ",").map(String.init) } })
        for s in withReports {
            let handle = try #require(s.uints("bqr.connection_handle").first)
            #expect(handles.contains(String(format: "0x%04x", handle)), "frame \(s.frame.number)")
            #expect(
                s.addresses("bqr.remote_address").map { $0.lowercased() }.allSatisfy(addresses.contains),
                "frame \(s.frame.number)"
            )
            #expect((-127...20).contains(s.ints("bqr.rssi").first ?? 0), "frame \(s.frame.number)")
        }
    }
}
