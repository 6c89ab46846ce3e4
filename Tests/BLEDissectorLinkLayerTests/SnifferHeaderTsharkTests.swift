import BLECaptureTestSupport
import BLEDissectorTestSupport
import Foundation
import Testing

/// The sniffer headers and link-layer fields beyond the agreement test's (which compares PDU
/// types, addresses, control, ATT and SMP opcodes): bleinspect and tshark agree on them, frame
/// by frame, on every sniffer capture in the shared captures.
private let headerFields = [
    "nordic_ble.channel", "nordic_ble.rssi", "nordic_ble.event_counter", "nordic_ble.crcok", "nordic_ble.direction",
    "nordic_ble.encrypted", "nordic_ble.phy", "btle_rf.channel", "btle_rf.signal_dbm", "btle_rf.flags",
    "btle_rf.pdu_type", "btle_rf.phy", "btle.coding_indicator", "btle.data_header.llid",
    "btle.data_header.next_expected_sequence_number", "btle.data_header.sequence_number", "btle.data_header.length",
    "btle.link_layer_data.interval", "btle.link_layer_data.crc_init", "btle.link_layer_data.channel_map",
    "btle.link_layer_data.hop", "btle.extended_advertising_header.flags",
    "btle.extended_advertising.advertising_data_info.sid", "btle.extended_advertising_header.aux_pointer.channel",
    "btle.target_address", "btle.scanning_address", "btle.initiator_address", "btcommon.eir_ad.entry.type",
]

/// The user link type table entry that makes tshark read pcap link type 147 as the LE link layer
/// (crackle's and Ubertooth's PPI captures wrap it).
let tsharkUserDLT = "uat:user_dlts:\"User 0 (DLT=147)\",\"btle\",\"0\",\"\",\"0\",\"\""

/// The shared captures of sniffer link types.
func sharedSnifferCaptures() -> [ManifestEntry] {
    ManifestEntry.all().filter { e in
        ["LINKTYPE 256", "LINKTYPE 272", "LINKTYPE 251", "LINKTYPE 192"].contains { e.linkType.hasPrefix($0) }
    }
}

@Suite("sniffer headers against tshark", .enabled(if: Run.tshark != nil && TestPaths.sharedCapturesAvailable))
struct SnifferHeaderTsharkTests {
    @Test func headersAgree() throws {
        let captures = sharedSnifferCaptures()
        #expect(captures.count >= 20)
        var report: [String] = []
        var compared = 0
        for entry in captures {
            var tsharkArguments = ["-r", entry.url.path, "-o", tsharkUserDLT, "-T", "fields", "-E", "separator=\t"]
            var ourArguments = ["read", entry.url.path, "-T", "fields"]
            for f in ["nordic_ble.crcok", "btle_rf.flags.crc_valid"] + headerFields {
                tsharkArguments += ["-e", f]
                ourArguments += ["-e", f]
            }
            guard let tshark = Run.tshark else { return }
            let theirs = try Run.program(tshark, tsharkArguments).stdoutText.split(
                separator: "\n",
                omittingEmptySubsequences: false
            )
            let ours = try Run.bleinspect(ourArguments).stdoutText.split(
                separator: "\n",
                omittingEmptySubsequences: false
            )
            #expect(theirs.count == ours.count, "\(entry.name): frame counts")
            for (n, (t, o)) in zip(theirs, ours).enumerated() {
                let tv = t.split(separator: "\t", omittingEmptySubsequences: false).map { $0.lowercased() }
                let ov = o.split(separator: "\t", omittingEmptySubsequences: false).map { $0.lowercased() }
                guard tv.count == headerFields.count + 2, ov.count == tv.count else { continue }
                // A packet whose CRC is bad may hold anything: its PDU fields are not compared
                // (tshark reads fields past a short PDU into the CRC; bleinspect marks it malformed).
                let badCRC = [tv[0], tv[1], ov[0], ov[1]].contains("0")
                for (k, field) in headerFields.enumerated() {
                    let (a, b) = (tv[k + 2], ov[k + 2])
                    if badCRC && field.hasPrefix("bt") && !field.hasPrefix("btle_rf") { continue }
                    compared += 1
                    if a != b && report.count < 40 {
                        report.append("\(entry.name) #\(n + 1) \(field): tshark \(a), ours \(b)")
                    }
                }
            }
        }
        #expect(report.isEmpty, "\(report.joined(separator: "\n"))")
        #expect(compared > 100_000)
    }
}
