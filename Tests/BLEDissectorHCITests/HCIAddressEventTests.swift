import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// Every BR/EDR event that carries a BD_ADDR (Core Vol 4 Part E 7.7), built by hand, read by
/// bleinspect and by tshark: the address and the parameters both name agree, frame by frame, and
/// bleinspect decodes every parameter (no bytes left over).
@Suite("BR/EDR events with a BD_ADDR against tshark")
struct HCIAddressEventTests {
    /// Event code and parameters (hex). Inquiry Result has two responses, each with its address.
    static let events: [(UInt8, String)] = [
        (0x02, "02 112233445566 01 0000 0c025a 3412 a1b2c3d4e5f6 01 0000 0c025a 3412"),
        (0x03, "00 0100 112233445566 01 00"),
        (0x04, "112233445566 0c025a 01"),
        (0x07, "00 112233445566" + String(repeating: "41", count: 5) + String(repeating: "00", count: 243)),
        (0x12, "00 112233445566 01"),
        (0x16, "112233445566"),
        (0x17, "112233445566"),
        (0x18, "112233445566 00112233445566778899aabbccddeeff 04"),
        (0x20, "112233445566 01"),
        (0x22, "01 112233445566 01 00 0c025a 3412 c4"),
        (0x2C, "00 0100 112233445566 02 06 02 3c00 3c00 03"),
        (0x2F, "01 112233445566 01 00 0c025a 3412 c4 0509414243440000" + String(repeating: "00", count: 232)),
        (0x31, "112233445566"),
        (0x32, "112233445566 01 00 03"),
        (0x33, "112233445566 40e20100"),
        (0x34, "112233445566"),
        (0x35, "112233445566"),
        (0x36, "00 112233445566"),
        (0x3B, "112233445566 40e20100"),
        (0x3C, "112233445566 01"),
        (0x3D, "112233445566 0100000000000000"),
    ]

    static let fields = [
        "bthci_evt.code", "bthci_evt.bd_addr", "bthci_evt.num_responses", "bthci_evt.page_scan_repetition_mode",
        "bthci_evt.clock_offset", "bthci_evt.rssi", "bthci_evt.status", "bthci_evt.connection_handle",
        "bthci_evt.sync_link_type", "bthci_evt.sync_tx_interval", "bthci_evt.sync_rtx_window",
        "bthci_evt.sync_rx_pkt_len", "bthci_evt.sync_tx_pkt_len", "bthci_evt.air_mode", "bthci_evt.notification_type",
    ]

    /// The events as H4 packets.
    static var packets: [[UInt8]] {
        events.map { code, hex in
            let parameters = Hex.bytes(hex)
            return [0x04, code, UInt8(parameters.count)] + parameters
        }
    }

    @Test("every event's address, and its other parameters, as tshark shows them", .enabled(if: Run.tshark != nil))
    func agree() throws {
        let dir = TemporaryDirectory()
        var file = CaptureBytes.btsnoopHeader(datalink: 1002)
        for packet in Self.packets {
            file += CaptureBytes.btsnoopRecord(packet, flags: 3, unixMicros: 1_700_000_000_000_000)
        }
        let path = dir.write(file, to: "bredr-events.btsnoop")
        let ours = try Run.bleinspect(["read", "-T", "fields"] + Self.fields.flatMap { ["-e", $0] } + [path])
        #expect(ours.status == 0, "\(ours.stderr)")
        let tshark = try #require(Run.tshark)
        let theirs = try Run.program(
            tshark,
            ["-r", path, "-T", "fields", "-E", "occurrence=a"] + Self.fields.flatMap { ["-e", $0] }
        )
        let ourRows = ours.stdoutText.split(separator: "\n").map(String.init)
        let theirRows = theirs.stdoutText.split(separator: "\n").map(String.init)
        try #require(ourRows.count == Self.events.count && theirRows.count == Self.events.count)
        for (i, (mine, their)) in zip(ourRows, theirRows).enumerated() {
            #expect(mine == their, "event 0x\(String(Self.events[i].0, radix: 16))")
            // Every event here carries an address, and the Inquiry Result two.
            let addresses = their.split(separator: "\t", omittingEmptySubsequences: false)[1]
            #expect(addresses.split(separator: ",").count == (Self.events[i].0 == 0x02 ? 2 : 1))
        }
    }

    @Test("every parameter is decoded: nothing left over, nothing malformed")
    func decodedWhole() {
        let frames = Self.packets.enumerated().map { i, packet in
            Dissect.hci(.hciEvent, packet.dropFirst().map { String(format: "%02x", $0) }.joined(), number: i + 1)
        }
        for (snapshot, event) in zip(Dissect.frames(frames), Self.events) {
            #expect(snapshot.warnings.isEmpty, "0x\(String(event.0, radix: 16)): \(snapshot.warnings)")
            #expect(!snapshot.has("data.data"), "0x\(String(event.0, radix: 16))")
            #expect(snapshot.addresses("bthci_evt.bd_addr").count == (event.0 == 0x02 ? 2 : 1))
        }
    }
}
