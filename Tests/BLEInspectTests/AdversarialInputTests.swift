import BLECaptureIO
import BLEInspectCore
import BLEInspectFilter
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// Builds large captures quickly: records are appended to one buffer, with no array per record.
private struct CaptureWriter {
    private(set) var bytes: [UInt8]
    private var micros: Int64 = 1_700_000_000_000_000
    private let pcap: Bool

    /// A btsnoop file of H4 packets (datalink 1002).
    static func btsnoop(capacity: Int) -> CaptureWriter {
        CaptureWriter(header: CaptureBytes.btsnoopHeader(datalink: 1002), capacity: capacity, pcap: false)
    }

    /// A pcap file of LE link-layer packets (link type 251).
    static func linkLayer(capacity: Int) -> CaptureWriter {
        CaptureWriter(header: CaptureBytes.pcapHeader(linkType: 251), capacity: capacity, pcap: true)
    }

    private init(header: [UInt8], capacity: Int, pcap: Bool) {
        bytes = header
        bytes.reserveCapacity(capacity)
        self.pcap = pcap
    }

    private mutating func be32(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 24))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    /// One packet; for btsnoop `received` is controller to host and `command` marks commands and
    /// events.
    mutating func add(_ packet: [UInt8], received: Bool = true, command: Bool = false) {
        micros += 100
        if pcap {
            be32(UInt32(truncatingIfNeeded: micros / 1_000_000))
            be32(UInt32(truncatingIfNeeded: micros % 1_000_000))
            be32(UInt32(packet.count))
            be32(UInt32(packet.count))
        } else {
            be32(UInt32(packet.count))
            be32(UInt32(packet.count))
            be32((received ? 1 : 0) | (command ? 2 : 0))
            be32(0)
            let stamp = UInt64(bitPattern: micros + 0x00DC_DDB3_0F2F_8000)
            be32(UInt32(truncatingIfNeeded: stamp >> 32))
            be32(UInt32(truncatingIfNeeded: stamp))
        }
        bytes.append(contentsOf: packet)
    }

    /// An H4 ACL packet: `start` sets packet boundary 2 (first fragment), otherwise 1.
    static func acl(handle: UInt16, start: Bool, _ payload: [UInt8]) -> [UInt8] {
        let word = handle & 0x0FFF | (start ? 0x2000 : 0x1000)
        return [0x02, UInt8(word & 0xFF), UInt8(word >> 8), UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)]
            + payload
    }

    /// An L2CAP basic frame.
    static func l2cap(cid: UInt16, _ payload: [UInt8], length: Int? = nil) -> [UInt8] {
        let n = length ?? payload.count
        return [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload
    }

    /// HCI LE Connection Complete for `handle`, from a peer whose address ends in `handle`.
    static func leConnectionComplete(handle: UInt16) -> [UInt8] {
        var event: [UInt8] = [0x04, 0x3E, 19, 0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, 0x00]
        event += [UInt8(handle & 0xFF), UInt8(handle >> 8), 0x33, 0x44, 0x55, 0x66]
        event += [0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00]
        return event
    }
}

/// The process's own memory account, from `--resource-report` on standard error.
private struct Resources {
    var peakKiB: Int
    var heapKiB: Int

    init?(_ stderr: String) {
        guard let line = stderr.split(separator: "\n").last(where: { $0.hasPrefix("bleinspect: resources: ") }) else {
            return nil
        }
        var values: [String: Int] = [:]
        for part in line.dropFirst("bleinspect: resources: ".count).split(separator: " ") {
            let pair = part.split(separator: "=")
            if pair.count == 2, let v = Int(pair[1]) { values[String(pair[0])] = v }
        }
        guard let peak = values["peak-rss-kib"], let heap = values["heap-kib"] else { return nil }
        peakKiB = peak
        heapKiB = heap
    }
}

/// Inputs built to exhaust a bound: each run must end normally, say with an expert note that the
/// bound was hit, and keep its peak resident set size (as the process itself reports it) under
/// `AdversarialInputTests.peakLimitKiB`.
@Suite("adversarial inputs stay within the bounds", .serialized)
struct AdversarialInputTests {
    /// The debug binary reading a small capture peaks at about 33 MiB, and at 36-39 MiB on
    /// these inputs; twice the baseline leaves room for the bounded tables (a few MiB each) but
    /// not for a table that grows with the input.
    static let peakLimitKiB = 72 * 1024

    /// How many frames (connections, access addresses) the large inputs have. The tables fill
    /// after a few thousand, so 150,000 shows the bound as well as a million does and keeps the
    /// debug build near a minute; BLEINSPECT_ADVERSARIAL_FULL=1 runs the full million.
    static let size = ProcessInfo.processInfo.environment["BLEINSPECT_ADVERSARIAL_FULL"] == "1" ? 1_000_000 : 150_000

    /// Runs `bleinspect read --resource-report` with `arguments` and returns the result and its
    /// memory account, checking the account is there and under the limit.
    private func read(_ arguments: [String], _ label: String) throws -> (ProcessResult, Resources) {
        let result = try Run.bleinspect(["read", "--resource-report"] + arguments)
        let resources = try #require(
            Resources(result.stderr),
            "\(label): no resource line in \(result.stderr.prefix(500))"
        )
        #expect(
            resources.peakKiB < Self.peakLimitKiB,
            "\(label): peak RSS \(resources.peakKiB) KiB, heap \(resources.heapKiB) KiB"
        )
        print("adversarial \(label): peak-rss-kib=\(resources.peakKiB) heap-kib=\(resources.heapKiB)")
        return (result, resources)
    }

    private func count(_ result: ProcessResult) -> Int? {
        Int(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("the resource report is one line with the peak RSS and the heap")
    func resourceReport() throws {
        let dir = TemporaryDirectory()
        var w = CaptureWriter.btsnoop(capacity: 1 << 10)
        w.add(CaptureWriter.leConnectionComplete(handle: 0x40), command: true)
        let path = dir.write(w.bytes, to: "small.btsnoop")
        let (result, resources) = try read([path], "baseline")
        #expect(result.status == 0)
        #expect(resources.peakKiB > 1024)
        #expect(resources.heapKiB > 0)
        // Without the option there is no such line.
        let plain = try Run.bleinspect(["read", path])
        #expect(!plain.stderr.contains("resources:"))
        let help = try Run.bleinspect(["read", "--help"])
        #expect(help.stdoutText.contains("--resource-report"))
    }

    @Test("a million (or 150,000) ACL start fragments that are never continued, on one handle and on every handle")
    func endlessStartFragments() throws {
        let dir = TemporaryDirectory()
        let frames = Self.size
        // Each says its L2CAP PDU is 65,535 bytes long and carries 4 bytes of it.
        let start = CaptureWriter.l2cap(cid: 0x0040, [0xAA, 0xBB, 0xCC, 0xDD], length: 0xFFFF)
        var one = CaptureWriter.btsnoop(capacity: frames * 40)
        let packet = CaptureWriter.acl(handle: 0x0040, start: true, start)
        for _ in 0..<frames { one.add(packet) }
        let onePath = dir.write(one.bytes, to: "one-handle.btsnoop")
        one = CaptureWriter.btsnoop(capacity: 0)

        let (r1, _) = try read(
            ["--count", "-Y", "_ws.expert.message contains \"Incomplete L2CAP PDU discarded\"", onePath],
            "start fragments, one handle"
        )
        #expect(r1.status == 0, "\(r1.stderr)")
        // Every start but the first discards the one before it, and says so.
        #expect(count(r1) == frames - 1)

        var many = CaptureWriter.btsnoop(capacity: frames * 40)
        for i in 0..<frames {
            // Handles 0x000-0xEFF, in both directions.
            many.add(CaptureWriter.acl(handle: UInt16(i % 0xF00), start: true, start), received: i / 0xF00 % 2 == 0)
        }
        let manyPath = dir.write(many.bytes, to: "many-handles.btsnoop")
        many = CaptureWriter.btsnoop(capacity: 0)
        let (r2, _) = try read(
            ["--count", "-Y", "_ws.expert.message contains \"Limit reached\"", manyPath],
            "start fragments, every handle"
        )
        #expect(r2.status == 0, "\(r2.stderr)")
        let limited = try #require(count(r2))
        // Past the first few hundred, every start fragment makes room by dropping the oldest.
        #expect(limited > frames - 1_000, "\(limited)")

        // The same as JSON, for a handful of frames: the note is in the decoded object.
        let (r3, _) = try read(
            ["-T", "json", "-c", "5002", "-Y", "frame.number >= 5000", manyPath],
            "start fragments, JSON"
        )
        #expect(r3.status == 0)
        let lines = r3.stdoutText.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            #expect(object is [String: Any])
            #expect(line.contains("Limit reached"), "\(line.prefix(2000))")
        }
    }

    @Test("LE credit-based connections for every source CID 0x0040-0xFFFF on one connection")
    func everyChannel() throws {
        let dir = TemporaryDirectory()
        var w = CaptureWriter.btsnoop(capacity: 70_000 * 2 * 40)
        w.add(CaptureWriter.leConnectionComplete(handle: 0x0001), command: true)
        var ident: UInt8 = 0
        for cid in UInt32(0x0040)...0xFFFF {
            let c = UInt16(cid)
            ident = ident == 255 ? 1 : ident + 1
            let lo = UInt8(c & 0xFF)
            let hi = UInt8(c >> 8)
            // Request from the local host: PSM 0x0080, SCID c, MTU 65,535, MPS 251, 10 credits.
            let request = CaptureWriter.l2cap(
                cid: 0x0005,
                [0x14, ident, 10, 0, 0x80, 0x00, lo, hi, 0xFF, 0xFF, 0xFB, 0x00, 0x0A, 0x00]
            )
            w.add(CaptureWriter.acl(handle: 0x0001, start: true, request), received: false)
            // Success from the peer: DCID c, MTU 65,535, MPS 251, 10 credits.
            let response = CaptureWriter.l2cap(
                cid: 0x0005,
                [0x15, ident, 10, 0, lo, hi, 0xFF, 0xFF, 0xFB, 0x00, 0x0A, 0x00, 0x00, 0x00]
            )
            w.add(CaptureWriter.acl(handle: 0x0001, start: true, response))
        }
        // The first K-frame of a 65,535-byte SDU towards the local host on every channel: each
        // one asks for a whole SDU's buffer.
        for cid in UInt32(0x0040)...0xFFFF {
            let kframe = CaptureWriter.l2cap(cid: UInt16(cid), [0xFF, 0xFF, 1, 2, 3, 4])
            w.add(CaptureWriter.acl(handle: 0x0001, start: true, kframe))
        }
        let path = dir.write(w.bytes, to: "channels.btsnoop")
        w = CaptureWriter.btsnoop(capacity: 0)

        // The notes, as fields written to a drained pipe: one line per frame that hit a limit.
        let (full, _) = try read(
            [
                "-T", "fields", "-e", "frame.number", "-e", "_ws.expert.message",
                "-Y", "_ws.expert.message contains \"Limit reached\"", path,
            ],
            "65,535 channels"
        )
        #expect(full.status == 0, "\(full.stderr)")
        let lines = full.stdoutText.split(separator: "\n")
        let refused = lines.filter { $0.contains("channel table full (512 channels)") }.count
        // Every response past the table's size is refused with a note.
        #expect(refused == 0xFFFF - 0x40 + 1 - 512, "\(refused)")
        // Of the first K-frames on the 512 channels followed, those past the connection's
        // 1 MiB SDU budget (16 SDUs of 65,535 bytes) are followed but not reassembled, with a note.
        let overBudget = lines.filter {
            $0.contains("reassembly budget of 1048576 bytes in progress on this connection")
        }
        #expect(overBudget.count == 512 - 16, "\(overBudget.count)")

        // The enhanced (EATT) variant: five source CIDs a request.
        var e = CaptureWriter.btsnoop(capacity: 30_000 * 2 * 40)
        e.add(CaptureWriter.leConnectionComplete(handle: 0x0002), command: true)
        var first: UInt32 = 0x0040
        ident = 0
        while first + 4 <= 0xFFFF {
            ident = ident == 255 ? 1 : ident + 1
            var cids: [UInt8] = []
            for k in 0..<UInt32(5) {
                let c = UInt16(first + k)
                cids += [UInt8(c & 0xFF), UInt8(c >> 8)]
            }
            // Request: SPSM 0x0027 (EATT), MTU 517, MPS 251, 5 credits, five SCIDs.
            let request = CaptureWriter.l2cap(
                cid: 0x0005,
                [0x17, ident, 18, 0, 0x27, 0x00, 0x05, 0x02, 0xFB, 0x00, 0x05, 0x00] + cids
            )
            e.add(CaptureWriter.acl(handle: 0x0002, start: true, request), received: false)
            // Response: MTU 517, MPS 251, 5 credits, result 0, the same five CIDs.
            let response = CaptureWriter.l2cap(
                cid: 0x0005,
                [0x18, ident, 18, 0, 0x05, 0x02, 0xFB, 0x00, 0x05, 0x00, 0x00, 0x00] + cids
            )
            e.add(CaptureWriter.acl(handle: 0x0002, start: true, response))
            first += 5
        }
        let ePath = dir.write(e.bytes, to: "eatt.btsnoop")
        let (eatt, _) = try read(
            ["--count", "-Y", "_ws.expert.message contains \"channel table full\"", ePath],
            "65,535 EATT channels"
        )
        #expect(eatt.status == 0, "\(eatt.stderr)")
        #expect((count(eatt) ?? 0) > 10_000, "\(eatt.stdoutText)")
    }

    @Test("a million (or 150,000) connections on HCI handles 0x000-0xEFF, each with ATT data")
    func millionHCIConnections() throws {
        let dir = TemporaryDirectory()
        let connections = Self.size
        var w = CaptureWriter.btsnoop(capacity: connections * 2 * 40)
        // An ATT Read Request that is never answered: state per connection.
        let readRequest = CaptureWriter.l2cap(cid: 0x0004, [0x0A, 0x03, 0x00])
        for i in 0..<connections {
            let handle = UInt16(i % 0xF00)
            w.add(CaptureWriter.leConnectionComplete(handle: handle), command: true)
            w.add(CaptureWriter.acl(handle: handle, start: true, readRequest), received: false)
        }
        let path = dir.write(w.bytes, to: "handles.btsnoop")
        w = CaptureWriter.btsnoop(capacity: 0)
        let (r, _) = try read(
            ["--count", "-Y", "_ws.expert.message contains \"reused without a disconnection\"", path],
            "a million HCI connections"
        )
        #expect(r.status == 0, "\(r.stderr)")
        // Every connection after the first 0xF00 reuses a handle still open.
        #expect(count(r) == connections - 0xF00)
    }

    @Test("a million (or 150,000) distinct link-layer access addresses")
    func millionAccessAddresses() throws {
        let dir = TemporaryDirectory()
        let addresses = Self.size
        var w = CaptureWriter.linkLayer(capacity: addresses * 32)
        for i in 0..<addresses {
            let aa = UInt32(0x1000_0000) &+ UInt32(i) &* 0x9E37
            // An L2CAP start fragment (LLID 2) saying 65,535 bytes, never continued; a CRC that is
            // not checked (no CONNECT_IND gave the CRC init).
            let pdu: [UInt8] = [0x02, 6, 0xFF, 0xFF, 0x04, 0x00, 0x0A, 0x03]
            w.add(CaptureBytes.le32(aa) + pdu + [0x12, 0x34, 0x56])
        }
        let path = dir.write(w.bytes, to: "access-addresses.pcap")
        w = CaptureWriter.linkLayer(capacity: 0)
        let (r, _) = try read(
            ["--count", "-Y", "_ws.expert.message contains \"Limit reached\"", path],
            "a million access addresses"
        )
        #expect(r.status == 0, "\(r.stderr)")
        // Past the connection table's size, each new address forgets the idle one.
        #expect((count(r) ?? 0) > addresses - 1_000, "\(r.stdoutText)")
    }

    @Test("filters nested 10,000 deep are a usage error, a 10,000-term chain a result; no stack overflow")
    func deepFilters() throws {
        let dir = TemporaryDirectory()
        var w = CaptureWriter.btsnoop(capacity: 1 << 10)
        w.add(CaptureWriter.leConnectionComplete(handle: 0x40), command: true)
        w.add(CaptureWriter.acl(handle: 0x40, start: true, CaptureWriter.l2cap(cid: 4, [0x0A, 0x03, 0x00])))
        let path = dir.write(w.bytes, to: "two.btsnoop")
        let n = 10_000
        let nested: [(String, String)] = [
            ("parentheses", String(repeating: "(", count: n) + "btatt" + String(repeating: ")", count: n)),
            ("!", String(repeating: "!", count: n) + "btatt"),
            ("not", String(repeating: "not ", count: n) + "btatt"),
            ("!(", String(repeating: "!(", count: n) + "btatt" + String(repeating: ")", count: n)),
        ]
        for (label, filter) in nested {
            let (r, _) = try read(["--count", "-Y", filter, path], "filter \(label)")
            #expect(r.status == 64, "\(label): exit \(r.status)")
            #expect(
                r.stderr.contains("more than \(DisplayFilter.maximumNesting) deep"),
                "\(label): \(r.stderr.prefix(300))"
            )
        }
        // A 10,000-term chain is not nesting: it compiles and is evaluated (on a link-layer
        // capture, whose layer has the shortest name: 10,000 terms fit the length limit).
        var ll = CaptureWriter.linkLayer(capacity: 1 << 10)
        ll.add(CaptureBytes.le32(0x5065_4A27) + [0x02, 7, 3, 0, 4, 0, 0x0A, 0x03, 0x00] + [0x12, 0x34, 0x56])
        let llPath = dir.write(ll.bytes, to: "one.pcap")
        let chain = Array(repeating: "btle", count: n).joined(separator: "&&")
        let (r1, _) = try read(["--count", "-Y", chain, llPath], "filter && chain")
        #expect(r1.status == 0, "\(r1.stderr.prefix(300))")
        #expect(count(r1) == 1)
        let negated = Array(repeating: "btle", count: n - 1).joined(separator: "&&") + "&&!btle"
        let (r2, _) = try read(["--count", "-Y", negated, llPath], "filter && chain, false")
        #expect(r2.status == 0)
        #expect(count(r2) == 0)
        // Past the length limit: a usage error that says so.
        // (4,000 terms: 80,000 bytes, under the kernel's limit on one argument.)
        let long = Array(repeating: "btatt.opcode==0x0a", count: 4_000).joined(separator: "&&")
        let (r3, _) = try read(["--count", "-Y", long, path], "filter too long")
        #expect(r3.status == 64)
        #expect(r3.stderr.contains("longer"), "\(r3.stderr.prefix(300))")

        // Through the API: the same errors, with the offending column.
        let registry = try StandardModules.registry()
        for (label, filter) in nested {
            do {
                _ = try DisplayFilter.compile(filter, registry: registry)
                Issue.record("\(label): compiled")
            } catch {
                #expect(error.message.contains("deep"), "\(label): \(error.message)")
            }
        }
        let compiled = try DisplayFilter.compile(chain, registry: registry)
        #expect(compiled.fieldsUsed.count == 1)
    }
}
