import BLEInspectTestSupport
import Foundation
import Testing

/// `live -w` with a key writes what `read -w` writes: the decrypted capture. bsniffhub's
/// out-of-band legacy pairing (link type 256, skipped when the shared captures are absent) is fed
/// on standard input with its TK; the file live writes is byte for byte the one read writes
/// (which tshark reads as decrypted, `DecryptedWriteTests`), and differs from the input in the
/// 13 PDUs that were encrypted.
@Suite("live: -w writes decrypted", .enabled(if: TestPaths.sharedCapturesAvailable))
struct LiveDecryptedWriteTests {
    static let tk = "5E882417A987222423A1A9EC719AED27"

    @Test func liveWritesWhatReadWrites() throws {
        let dir = TemporaryDirectory()
        let path = TestPaths.sharedCaptures.appendingPathComponent("bsniffhub_lp-oob.pcap").path
        let capture = try CaptureRecords(path: path)
        let fromLive = dir.path("live.pcap")
        let live = try LiveProcess(["live", "-", "--tk", Self.tk, "-w", fromLive, "-T", "fields", "-e", "frame.number"])
        for record in [capture.header] + capture.records { live.feedStdin(record) }
        live.closeStdin()
        let (status, _) = live.finish()
        #expect(status == 0)
        let fromRead = dir.path("read.pcap")
        #expect(try Run.bleinspect(["read", path, "--tk", Self.tk, "-w", fromRead]).status == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: fromLive))
        #expect(written == (try Data(contentsOf: URL(fileURLWithPath: fromRead))))
        let decrypted = try Run.bleinspect(["read", fromLive, "-Y", "btle_rf.flags.decrypted == 1", "--count"])
        #expect(decrypted.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "13")
        #expect(written != (try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
