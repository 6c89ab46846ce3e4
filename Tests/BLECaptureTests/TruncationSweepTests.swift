import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

/// One capture of each format and link type: the project's own, plus shared ones when present.
private func sweepCaptures() -> [String] {
    var paths = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map(\.path)
    if TestPaths.sharedCapturesAvailable {
        let shared = [
            "batteread_capture.btsnoop",  // btsnoop 2001
            "bk300_btsnoop_hci.log.last",  // btsnoop 1002
            "isap_hci_dump.pklg",  // PacketLogger, big-endian
            "peripage_capture.pklg",  // PacketLogger, little-endian
            "airbily_bluethoot_logs.pcapng",  // pcapng, 201
            "blepcapanalyzer_hci.pcap",  // pcap, 201
            "mhaberler_ble.pcapng",  // pcapng, 272
            "bsniffhub_phy-changed.pcap",  // pcap, 256
            "crackle_known_ltk.pcap",  // pcap, PPI
        ]
        paths += shared.map { TestPaths.sharedCaptures.appendingPathComponent($0).path }
    }
    return paths
}

@Suite("damaged input")
struct TruncationSweepTests {
    /// Cuts the capture at every byte offset of its first 4 KiB. Each cut reads cleanly (the cut
    /// fell between records) or ends in a damage error; either way the frames read before the end
    /// are exactly the first frames of the whole file. Nothing crashes or hangs.
    @Test("every cut in the first 4 KiB gives a clean read or the damage error", arguments: sweepCaptures())
    func cuts(path: String) throws {
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let full = CaptureFiles.readAll(path)
        #expect(full.error == nil)
        let dir = TemporaryDirectory()
        let cutPath = dir.path("cut")
        var clean = 0
        var damaged = 0
        for cut in 0...min(4096, whole.count) {
            FileManager.default.createFile(atPath: cutPath, contents: Data(whole[0..<cut]))
            let result = CaptureFiles.readAll(cutPath)
            #expect(result.frames.count <= full.frames.count)
            for (a, b) in zip(result.frames, full.frames) where a.bytes != b.bytes || a.timestamp != b.timestamp {
                Issue.record("cut at \(cut): frame \(a.number) differs from the whole file's")
                break
            }
            if let error = result.error {
                if cut == 0 {
                    #expect(error.code == .empty)
                } else {
                    #expect(error.isDamage, "cut at \(cut): \(error)")
                    #expect(error.offset != nil, "cut at \(cut): damage without an offset: \(error)")
                    #expect(
                        error.offset.map { $0 <= Int64(cut) } ?? false,
                        "cut at \(cut): offset past the end: \(error)"
                    )
                }
                damaged += 1
            } else {
                clean += 1
            }
        }
        #expect(damaged > 0)
    }
}
