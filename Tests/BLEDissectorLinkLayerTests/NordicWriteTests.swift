import BLECaptureTestSupport
import BLEDissectorTestSupport
import Foundation
import Testing

/// The encrypted connection of `EncryptedConnection` as an nRF Sniffer capture (link type 272,
/// protocol version 3), written decrypted with `-w` and read back by tshark: the nRF header says
/// encrypted with MIC OK on the decrypted packets, its payload length matches, and tshark decodes
/// the ATT PDUs inside.
@Suite("writing a decrypted nRF Sniffer capture", .enabled(if: Run.tshark != nil))
struct NordicWriteTests {
    /// Frames sent encrypted in the scenario.
    static let encrypted: Set<Int> = [6, 7, 8, 11, 13, 14, 16, 17]

    /// The scenario's packets behind an nRF Sniffer header: CRC OK, the direction, encrypted
    /// (without MIC OK: not decrypted by the sniffer) where the scenario encrypted.
    static func nordic() throws -> [UInt8] {
        var out = CaptureBytes.pcapHeader(linkType: 272)
        for (n, p) in try EncryptedConnection.scenario().packets.enumerated() {
            let number = n + 1
            let advertising = number == 1
            var flags: UInt8 = 0x01
            if !advertising && number % 2 == 0 { flags |= 0x02 }  // central to peripheral
            if Self.encrypted.contains(number) { flags |= 0x04 }
            let header: [UInt8] = [10, flags, advertising ? 37 : 5, 60] + [0, 0] + CaptureBytes.le32(p.micros)
            let payload = header + p.bytes
            let record =
                [0] + SyntheticConnection.le16(UInt16(payload.count)) + [3] + SyntheticConnection.le16(UInt16(n)) + [6]
                + payload
            out += CaptureBytes.pcapRecord(record, seconds: 1_700_000_000, micros: p.micros)
        }
        return out
    }

    @Test func tsharkReadsTheDecryptedCapture() throws {
        let dir = TemporaryDirectory()
        let original = dir.write(try Self.nordic(), to: "nordic.pcap")
        let out = dir.path("decrypted.pcap")
        let write = try Run.bleinspect(["read", original, "--ltk", DecryptionTests.key, "-w", out])
        try #require(write.status == 0, "\(write.stderr)")
        let rows = try Run.tsharkFields(
            out,
            ["frame.number", "nordic_ble.encrypted", "nordic_ble.micok", "btatt.opcode", "_ws.malformed"]
        )
        try #require(rows.count == 20)
        for row in rows {
            guard let n = Int(row[0]) else { continue }
            if Self.encrypted.contains(n) {
                #expect(row[1] == "1" && row[2] == "1", "frame \(n): \(row)")
            }
            #expect(row[4].isEmpty, "frame \(n): malformed")
        }
        let att = rows.filter { !$0[3].isEmpty }.map { "\($0[0]) \($0[3])" }
        // The retransmission (13) is decoded again by tshark; bleinspect does not pass it up.
        #expect(att == ["8 0x0a", "11 0x0b", "13 0x0b", "14 0x12", "20 0x0a"])
        let expert = try Run.tsharkFields(out, ["_ws.expert.message"]).flatMap { $0 }.filter { !$0.isEmpty }
        #expect(!expert.contains { $0.lowercased().contains("length") || $0.lowercased().contains("crc") }, "\(expert)")
    }
}
