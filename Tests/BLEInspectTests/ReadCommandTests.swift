import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// Inputs for the command-line tests: one of each format from the project's captures, plus shared
/// ones when present.
private func sampleCaptures() -> [String] {
    var paths = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map(\.path)
    if TestPaths.sharedCapturesAvailable {
        paths += [
            "airbily_bluethoot_logs.pcapng", "blepcapanalyzer_hci.pcap", "batteread_capture.btsnoop",
            "peripage_capture.pklg", "isap_hci_dump.pklg", "mhaberler_ble.pcapng",
            "sweyntooth_noncomplicance_telink_respond_invalid_control_pdu.pcapng",
        ].map { TestPaths.sharedCaptures.appendingPathComponent($0).path }
    }
    return paths
}

@Suite("bleinspect read")
struct ReadCommandTests {
    typealias B = CaptureBytes

    @Test("reading standard input gives the same output as reading the file", arguments: sampleCaptures())
    func stdinMatchesFile(path: String) throws {
        let fromFile = try Run.bleinspect(["read", path])
        let fromStdin = try Run.bleinspect(["read", "-"], stdinPath: path)
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(!fromFile.stdout.isEmpty)
        #expect(fromStdin.stdout == fromFile.stdout)
        // A pipe, not a seekable file, must give the same too.
        let piped = try Run.program(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "cat \"$1\" | \"$2\" read -", "sh", path, TestPaths.bleinspectBinary.path]
        )
        #expect(piped.stdout == fromFile.stdout)
    }

    @Test("one line per frame: number, time, direction, controller, summary")
    func lineFormat() throws {
        let dir = TemporaryDirectory()
        let file = dir.write(
            B.btsnoopHeader(datalink: 2001)
                + B.btsnoopRecord([0x03, 0x0C, 0x00], flags: 0x0000_0002, unixMicros: 1_000_000)
                + B.btsnoopRecord([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 0x0000_0003, unixMicros: 1_250_000)
                + B.btsnoopRecord(
                    Array("evil\u{1B}]0;title\u{07}\u{202E}name".utf8) + [0xFF],
                    flags: 0xFFFF_000C,
                    unixMicros: 2_000_001
                ),
            to: "m.btsnoop"
        )
        let result = try Run.bleinspect(["read", file])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "      1     0.000000 < hci0  HCI_CMD  Sent Reset",
                "      2     0.250000 > hci0  HCI_EVT  Rcvd Command Complete (Reset)",
                "      3     1.000001 ? -     NOTE     Note: evil\\x1B]0;title\\x07\\u{202E}name\\xFF",
            ]
        )
        #expect(!result.stdoutText.contains("\u{1B}"))
        let delta = try Run.bleinspect(["read", "-t", "d", file]).stdoutText.split(separator: "\n").map(String.init)
        #expect(delta[2].contains(" 0.750001 "))
        let absolute = try Run.bleinspect(["read", "-t", "a", file]).stdoutText
        #expect(absolute.contains("1970-01-01 00:00:01.250000"))
    }

    @Test("-c stops early and --count prints only the count")
    func countOptions() throws {
        let path = try #require(sampleCaptures().first)
        let total = CaptureFiles.readAll(path).frames.count
        let limited = try Run.bleinspect(["read", "-c", "3", path])
        #expect(limited.stdoutText.split(separator: "\n").count == min(3, total))
        let counted = try Run.bleinspect(["read", "--count", path])
        #expect(counted.stdoutText == "\(total)\n")
        let both = try Run.bleinspect(["read", "--count", "-c", "2", path])
        #expect(both.stdoutText == "\(min(2, total))\n")
    }

    @Test("-w converts; the format comes from the extension or -F; the copy reads back the same")
    func writeOption() throws {
        let dir = TemporaryDirectory()
        let path = try #require(sampleCaptures().first { CaptureFiles.readAll($0).frames.contains { $0.kind.isHCI } })
        let original = CaptureFiles.readAll(path).frames.filter(\.kind.isHCI)
        for ext in ["pcap", "pcapng", "btsnoop"] {
            let out = dir.path("out.\(ext)")
            let result = try Run.bleinspect(["read", "--count", path, "-w", out])
            #expect(result.status == 0, "\(result.stderr)")
            let back = CaptureFiles.readAll(out)
            #expect(back.format?.container.rawValue == ext)
            #expect(back.frames.map(\.bytes) == original.map(\.bytes))
        }
        let unknown = try Run.bleinspect(["read", path, "-w", dir.path("out.bin")])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("-F"))
        let forced = try Run.bleinspect(["read", "--count", path, "-w", dir.path("out.bin"), "-F", "btsnoop"])
        #expect(forced.status == 0)
        #expect(CaptureFiles.readAll(dir.path("out.bin")).format?.container == .btsnoop)
        // -w - writes the capture to standard output instead of text.
        let toStdout = try Run.bleinspect(["read", path, "-w", "-", "-F", "pcapng"])
        #expect(toStdout.stdout.prefix(4) == Data([0x0A, 0x0D, 0x0D, 0x0A]))
    }

    @Test("damaged input: frames before the damage are printed, one error line names file, frame, offset; exit 65")
    func damagedExit() throws {
        let dir = TemporaryDirectory()
        let record = B.btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
        let file = dir.write(B.btsnoopHeader(datalink: 1002) + record + record + record.prefix(10), to: "cut.btsnoop")
        let result = try Run.bleinspect(["read", file])
        #expect(result.status == 65)
        #expect(result.stdoutText.split(separator: "\n").count == 2)
        let errorLines = result.stderr.split(separator: "\n")
        #expect(errorLines.count == 1)
        #expect(errorLines.first?.contains(file) == true)
        #expect(errorLines.first?.contains("frame 3 at byte offset \(16 + 2 * record.count)") == true)
        let junk = try Run.bleinspect(["read", dir.write(Array("not a capture at all".utf8), to: "junk")])
        #expect(junk.status == 65)
        #expect(junk.stderr.contains("not a capture"))
    }

    @Test("unreadable input exits 66: missing, directory, empty")
    func unreadableExit() throws {
        let dir = TemporaryDirectory()
        for (path, words) in [
            (dir.path("missing.pcap"), "No such file"), (dir.url.path, "directory"), (dir.write([], to: "e"), "empty"),
        ] {
            let result = try Run.bleinspect(["read", path])
            #expect(result.status == 66, "\(path)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("usage errors exit 64")
    func usageExit() throws {
        #expect(try Run.bleinspect(["read"]).status == 64)
        #expect(try Run.bleinspect(["read", "-c", "x", "f"]).status == 64)
        #expect(try Run.bleinspect(["read", "--no-such-option", "f"]).status == 64)
    }

    @Test("--progress draws a progress line on standard error and clears it; --no-progress keeps quiet")
    func progressLine() throws {
        let dir = TemporaryDirectory()
        var bytes = B.btsnoopHeader(datalink: 1002)
        for i in 0..<2048 { bytes += B.btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: Int64(i)) }
        let file = dir.write(bytes, to: "many.btsnoop")
        let shown = try Run.bleinspect(["read", "--progress", "--count", file])
        #expect(shown.stdoutText == "2048\n")
        #expect(shown.stderr.contains("many.btsnoop: 1024 frames, "))
        #expect(shown.stderr.hasSuffix("\r\u{1B}[K"))
        let quiet = try Run.bleinspect(["read", "--no-progress", "--count", file])
        #expect(quiet.stderr.isEmpty)
    }

    @Test("--overflow-uuid names the services behind set bits of Apple's overflow area")
    func overflowUUIDOption() throws {
        let dir = TemporaryDirectory()
        // An LE Advertising Report whose Apple manufacturer data (type 0x01) sets bit 83, the bit
        // of 2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6 (an iOS background advert, ADVERTISING.md F7).
        let ad = Hex.bytes("02011a 14ff4c0001 00000000000000000000080000000000")
        var event: [UInt8] = [0x3E, 0, 0x02, 0x01, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0xC6, UInt8(ad.count)]
        event += ad + [0xC4]
        event[1] = UInt8(event.count - 2)
        let file = dir.write(
            B.btsnoopHeader(datalink: 1002) + B.btsnoopRecord([0x04] + event, flags: 3, unixMicros: 0),
            to: "a.btsnoop"
        )
        let named = try Run.bleinspect([
            "read", "-V", "--overflow-uuid", "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6=Heart Monitor", file,
        ])
        #expect(named.status == 0)
        #expect(named.stdoutText.contains("Heart Monitor"))
        let plain = try Run.bleinspect(["read", "-V", file])
        #expect(!plain.stdoutText.contains("Heart Monitor"))
        let bad = try Run.bleinspect(["read", "--overflow-uuid", "not-a-uuid", file])
        #expect(bad.status == 64)
    }

    @Test("-Y keeps only matching frames for text, --count and -w; a bad filter is a caret error, exit 64")
    func displayFilterOption() throws {
        let dir = TemporaryDirectory()
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        let expr = "btl2cap.cmd_code == 0x16"
        // The frames tshark selects are the reference when it is installed; otherwise the count
        // of credit packets from captures/README.md (9 received + 53 sent).
        let expected = try Run.tshark != nil ? Run.tsharkFilter(path, expr) : []
        let lines = try Run.bleinspect(["read", "-Y", expr, path]).stdoutText.split(separator: "\n")
        let numbers = lines.compactMap { Int($0.split(separator: " ").first ?? "") }
        #expect(numbers.count == 62)
        if Run.tshark != nil { #expect(numbers == expected) }
        #expect(lines.allSatisfy { $0.contains("LE Flow Control Credit") })
        let counted = try Run.bleinspect(["read", "--count", "-Y", expr, path])
        #expect(counted.stdoutText == "62\n")
        let out = dir.path("credits.pcapng")
        let written = try Run.bleinspect(["read", "--count", "-Y", expr, "-w", out, path])
        #expect(written.status == 0)
        #expect(CaptureFiles.readAll(out).frames.count == 62)
        let bad = try Run.bleinspect(["read", "-Y", "btl2cap.cmd_cod == 0x16", path])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("btl2cap.cmd_cod == 0x16\n^"))
        #expect(bad.stderr.contains("btl2cap.cmd_code"))
        #expect(bad.stdout.isEmpty)
    }

    @Test("-Y takes a filter that starts with -; --ref-frame gives field references their values")
    func filterStartingWithMinusAndReferenceFrame() throws {
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        let all = try Run.bleinspect(["read", "--count", "-Y", "btl2cap.cid", path])
        let negated = try Run.bleinspect(["read", "--count", "-Y", "-btl2cap.cid < 0", path])
        #expect(negated.status == 0)
        #expect(negated.stdoutText == all.stdoutText)
        #expect(all.stdoutText != "0\n")
        // Frame 1's frame.number is 1: with it as the reference, only frame 1 is "the same frame".
        let same = ["read", "-T", "fields", "-e", "frame.number", "-Y", "frame.number == ${frame.number}"]
        #expect(try Run.bleinspect(same + ["--ref-frame", "1", path]).stdoutText == "1\n")
        #expect(try Run.bleinspect(same + ["--ref-frame", "3", path]).stdoutText == "3\n")
        // Without a reference frame, as in tshark, no comparison with ${…} holds.
        #expect(try Run.bleinspect(same + [path]).stdoutText == "")
        let beyond = try Run.bleinspect(same + ["--ref-frame", "999999", path])
        #expect(beyond.status == 64)
        #expect(beyond.stderr.contains("has fewer frames"))
        #expect(try Run.bleinspect(same + ["--ref-frame", "1", "-"]).status == 64)
    }

    @Test("help shows examples; completion scripts are generated")
    func helpAndCompletion() throws {
        let help = try Run.bleinspect(["read", "--help"])
        #expect(help.status == 0)
        #expect(help.stdoutText.contains("Examples:"))
        for shell in ["bash", "zsh", "fish"] {
            let script = try Run.bleinspect(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdoutText.contains("bleinspect"))
        }
    }
}
