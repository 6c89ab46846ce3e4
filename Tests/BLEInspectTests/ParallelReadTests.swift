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

/// A capture that mixes every kind of traffic the project records, interleaved, long enough to
/// fill several batches of the parallel reader: advertising reports (which workers decode) between
/// GATT discovery, LE credit-based channels and pairing (which only the reading thread may). Now
/// and then an ACL frame comes again cut short, which the dissectors mark malformed.
private func interleavedCapture(in dir: TemporaryDirectory) throws -> String {
    let sources = [
        "adv-scan.btsnoop", "adv-extended.btsnoop", "gatt-discovery.btsnoop", "le-coc.btsnoop", "smp-pairing.btsnoop",
    ]
    .map { CaptureFiles.readAll(TestPaths.projectCapture($0)).frames }
    var frames: [CapturedFrame] = []
    for round in 0..<8 {
        var cursors = [Int](repeating: 0, count: sources.count)
        var remaining = true
        while remaining {
            remaining = false
            for (s, list) in sources.enumerated() where cursors[s] < list.count {
                // Uneven runs, so that batches start at every kind of frame.
                for _ in 0..<(1 + (s + round) % 3) where cursors[s] < list.count {
                    frames.append(list[cursors[s]])
                    cursors[s] += 1
                }
                remaining = true
            }
        }
    }
    var damaged: [CapturedFrame] = []
    for (n, frame) in frames.enumerated() {
        damaged.append(frame)
        if n % 97 == 0, frame.kind == .aclData, frame.bytes.count > 8 {
            var cut = frame
            cut.bytes.removeLast(3)
            cut.originalLength = cut.bytes.count
            damaged.append(cut)
        }
    }
    let path = dir.path("interleaved.btsnoop")
    try CaptureFiles.write(damaged, to: path, format: .btsnoop)
    return path
}

@Suite("read with worker threads")
struct ParallelReadTests {
    /// The options that change what the threads do: output modes, filters, counting, writing.
    static let modes: [[String]] = [
        [],
        ["--color", "always"],
        ["-x"],
        ["-V"],
        ["-T", "json"],
        ["-T", "fields", "-e", "frame.number", "-e", "bthci_evt.rssi", "-e", "btatt.opcode", "-e", "btl2cap.cid"],
        ["-Y", "btatt || bthci_evt.rssi < -60"],
        ["-Y", "btcommon.eir_ad.entry.device_name", "--count"],
        ["-Y", "btl2cap.cmd_code == 0x16", "--count"],
        ["-c", "1000"],
        // device.* fields: every frame needs the frames before it, so the workers only render.
        ["-Y", "device.name"],
        ["-V", "-Y", "device.addr", "-c", "2000"],
        // Displayed deltas follow the filter's verdicts in order (timestamps here go backwards too).
        ["-V", "-Y", "btatt"],
        ["-T", "json", "-Y", "bthci_evt"],
        [
            "-T", "fields", "-e", "frame.number", "-e", "frame.time_delta_displayed", "-Y",
            "btatt || bthci_evt.rssi < -60",
        ],
        ["-T", "fields", "-e", "frame.time", "-e", "frame.time_relative", "-e", "frame.time_delta"],
    ]

    @Test("the output, the messages and the exit status do not depend on the threads", arguments: modes)
    func sameOutput(mode: [String]) throws {
        let dir = TemporaryDirectory()
        let path = try interleavedCapture(in: dir)
        let frames = CaptureFiles.readAll(path).frames.count
        #expect(frames > 4 * 1024, "the capture must span several batches")
        let single = try Run.bleinspect(["read", "--threads", "0"] + mode + [path])
        #expect(single.status == 0, "\(single.stderr)")
        #expect(!single.stdout.isEmpty)
        for threads in ["1", "3"] {
            let parallel = try Run.bleinspect(["read", "--threads", threads] + mode + [path])
            #expect(parallel.status == single.status)
            #expect(parallel.stderr == single.stderr)
            #expect(parallel.stdout == single.stdout, "--threads \(threads) \(mode) differs")
        }
    }

    /// The reading thread hands a worker only what a summary line reads of its frames' trees; the
    /// malformed mark is part of it.
    @Test("malformed frames' lines are red in colour, with and without threads")
    func malformedInColour() throws {
        let dir = TemporaryDirectory()
        let path = try interleavedCapture(in: dir)
        let plain = try Run.bleinspect(["read", "--threads", "0", "-Y", "_ws.malformed", "--count", path])
        let malformed = Int(plain.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(malformed > 10, "the cut frames are malformed: \(plain.stdoutText)")
        for threads in ["0", "1", "3"] {
            let coloured = try Run.bleinspect(["read", "--threads", threads, "--color", "always", path])
            let red = coloured.stdoutText.split(separator: "\n").filter { $0.contains("\u{1B}[31m") }
            #expect(red.count == malformed, "--threads \(threads)")
        }
    }

    /// Sniffer captures, where the dissection learns each frame's direction: a tree handed to a
    /// worker must carry it (the summary line's arrow, `C→P`).
    @Test(
        "real captures read the same with threads as without",
        .enabled(if: TestPaths.sharedCapturesAvailable),
        arguments: [[], ["-V", "-x"], ["-T", "json"]]
    )
    func sharedCapturesSameOutput(mode: [String]) throws {
        for entry in ManifestEntry.all() {
            let single = try Run.bleinspect(["read", "--threads", "0"] + mode + [entry.url.path])
            let parallel = try Run.bleinspect(["read", "--threads", "1"] + mode + [entry.url.path])
            #expect(parallel.status == single.status && parallel.stdout == single.stdout, "\(entry.name) \(mode)")
        }
    }

    @Test("frames written with -w are the same, in the same order")
    func sameWrittenCapture() throws {
        let dir = TemporaryDirectory()
        let path = try interleavedCapture(in: dir)
        var written: [[UInt8]] = []
        for threads in ["0", "2"] {
            let out = dir.path("out-\(threads).pcapng")
            let result = try Run.bleinspect([
                "read", "--threads", threads, "-Y", "bthci_evt || btatt", "--count", "-w", out, path,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            written.append(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        }
        #expect(written[0].count > 1000)
        #expect(written[0] == written[1])
    }

    @Test(
        "a file -w cannot write (/dev/full) past its first buffer: status 73 and why, with and without threads",
        arguments: ["pcap", "pcapng", "btsnoop"]
    )
    func writeFailsMidway(format: String) throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        let dir = TemporaryDirectory()
        let path = try interleavedCapture(in: dir)
        for threads in ["0", "2"] {
            // Far more than one stdio buffer (4 KiB) of frames: the first write fails mid-run,
            // not when the file is closed.
            let result = try Run.bleinspect([
                "read", "--threads", threads, "-Y", "btatt", "-F", format, "-w", "/dev/full", path,
            ])
            #expect(result.status == 73, "--threads \(threads) -F \(format): \(result.stderr)")
            #expect(result.stderr.contains("writing /dev/full failed: No space left on device"), "\(result.stderr)")
        }
    }

    @Test("long records among short ones (past a batch's byte budget and the kept storage) read the same")
    func longRecords() throws {
        let dir = TemporaryDirectory()
        var frames = CaptureFiles.readAll(try interleavedCapture(in: dir)).frames
        // ACL packets of 20,000 bytes (an ATT PDU cut short: marked, not a reason to stop), one
        // in every 40 frames: a batch of records ends after 13 of them, and their storage,
        // passed on to shorter records, is dropped rather than kept.
        for i in stride(from: 7, to: frames.count, by: 40) {
            let payload = 19_996
            var bytes: [UInt8] = [0x01, 0x00, UInt8(payload & 0xFF), UInt8(payload >> 8)]
            bytes += [0x10, 0x27, 0x04, 0x00, 0x1B, 0x0E, 0x00]
            bytes += (0..<(payload - 7)).map { UInt8(truncatingIfNeeded: $0) }
            frames[i].kind = .aclData
            frames[i].bytes = bytes
            frames[i].originalLength = bytes.count
        }
        let path = dir.path("long.btsnoop")
        try CaptureFiles.write(frames, to: path, format: .btsnoop)
        let single = try Run.bleinspect(["read", "--threads", "0", "-x", path])
        #expect(single.stdout.count > 1_000_000)
        for threads in ["1", "2"] {
            let parallel = try Run.bleinspect(["read", "--threads", threads, "-x", path])
            #expect(parallel.status == single.status && parallel.stderr == single.stderr)
            #expect(parallel.stdout == single.stdout, "--threads \(threads)")
        }
    }

    @Test("a capture cut short: what precedes the damage is shown, then the same error")
    func damagedInput() throws {
        let dir = TemporaryDirectory()
        let path = try interleavedCapture(in: dir)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = dir.write(Array(bytes[0..<(bytes.count * 2 / 3)]), to: "cut.btsnoop")
        let single = try Run.bleinspect(["read", "--threads", "0", cut])
        let parallel = try Run.bleinspect(["read", "--threads", "2", cut])
        #expect(single.status == 65)
        #expect(single.stderr.contains("byte offset"))
        #expect(parallel.status == single.status)
        #expect(parallel.stderr == single.stderr)
        #expect(parallel.stdout == single.stdout)
    }

    @Test("--threads outside 0…16 is a usage error")
    func threadsRange() throws {
        let result = try Run.bleinspect(["read", "--threads", "17", TestPaths.projectCapture("adv-scan.btsnoop")])
        #expect(result.status == 64)
    }
}

/// A plugin-like module that keeps state while decoding AD type 0xFE.
private enum StatefulADModule: DissectorModule {
    static let name = "stateful-ad"
    struct Counter: Dissector {
        func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {}
    }
    static func register(_ registry: inout RegistryBuilder) {
        registry.bind(to: StandardTables.adType, key: 0xFE) { scope in
            scope.usesCaptureState()
            return Counter()
        }
    }
}

@Suite("which frames decode without state")
struct StatelessFrameTests {
    /// An LE Advertising Report event, an ACL frame and a Command Complete.
    static let report = CapturedFrame(
        number: 1,
        timestamp: Timestamp(seconds: 0, nanoseconds: 0, precision: .microseconds),
        direction: .controllerToHost,
        controllerIndex: nil,
        kind: .hciEvent,
        bytes: [0x3E, 0x0C, 0x02, 0x01, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x00, 0xC0],
        originalLength: 14,
        sourceOffset: 0
    )
    static func frame(_ kind: FrameKind, _ bytes: [UInt8]) -> CapturedFrame {
        var f = report
        f.kind = kind
        f.bytes = bytes
        f.originalLength = bytes.count
        return f
    }

    @Test("advertising reports and Number Of Completed Packets do; connections, data and commands do not")
    func standardModules() throws {
        var engine = DissectionEngine(registry: try StandardModules.registry())
        engine.runsPostDissectors = false
        #expect(engine.decodesWithoutState(Self.report))
        #expect(engine.decodesWithoutState(Self.frame(.hciEvent, [0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00])))
        // LE Connection Complete, Disconnection Complete, Command Complete, ACL data, a command.
        #expect(
            !engine.decodesWithoutState(Self.frame(.hciEvent, [0x3E, 0x13, 0x01] + Array(repeating: 0, count: 18)))
        )
        #expect(!engine.decodesWithoutState(Self.frame(.hciEvent, [0x05, 0x04, 0x00, 0x40, 0x00, 0x13])))
        #expect(!engine.decodesWithoutState(Self.frame(.hciEvent, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])))
        #expect(
            !engine.decodesWithoutState(Self.frame(.aclData, [0x40, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A]))
        )
        #expect(!engine.decodesWithoutState(Self.frame(.hciCommand, [0x03, 0x0C, 0x00])))
        // Too short to tell: stateful, the safe answer.
        #expect(!engine.decodesWithoutState(Self.frame(.hciEvent, [0x3E])))
    }

    @Test("post-dissectors make every frame stateful")
    func postDissectors() throws {
        let engine = DissectionEngine(registry: try StandardModules.registry())
        #expect(engine.runsPostDissectors)
        #expect(!engine.decodesWithoutState(Self.report))
    }

    @Test("a stateful decoder bound beneath the advertising data makes the reports stateful")
    func statefulPluginBeneath() throws {
        let registry = try RegistryBuilder.build(modules: StandardModules.builtIn + [StatefulADModule.self])
        #expect(registry.binding(StandardTables.adType, DissectorKey(0xFE))?.keepsNoState == false)
        #expect(registry.binding(StandardTables.advertisingData, DissectorKey(0))?.keepsNoState == false)
        #expect(registry.binding(StandardTables.leMetaSubevent, DissectorKey(0x02))?.keepsNoState == false)
        // Number Of Completed Packets dispatches into no table, so it stays stateless.
        #expect(registry.binding(StandardTables.hciEvent, DissectorKey(0x13))?.keepsNoState == true)
        var engine = DissectionEngine(registry: registry)
        engine.runsPostDissectors = false
        #expect(!engine.decodesWithoutState(Self.report))
    }
}
