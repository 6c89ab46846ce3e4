import BLECapture
import BLECaptureIO
import BLECaptureLive
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A server running on its own thread.
private final class ServerThread: @unchecked Sendable {
    let server: ReplayServer
    let stop: LiveStop
    let port: UInt16
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: ReplayOutcome?
    private var seen: [ReplayEvent] = []

    /// A server over `path` on 127.0.0.1, port 0, listening before this returns.
    init(path: String, speed: ReplaySpeed = .max, loop: Bool = false) throws {
        stop = try LiveStop()
        server = ReplayServer(
            endpoint: TCPAddress(host: "127.0.0.1", port: 0),
            speed: speed,
            loop: loop,
            stop: stop
        ) { () throws(CaptureError) -> any FrameReader in
            try CaptureOpener.open(path: path)
        }
        try server.prepare()
        let bound = try server.listen()
        port = bound.port
        let thread = Thread { [self] in
            let outcome = server.run { event in
                self.lock.lock()
                self.seen.append(event)
                self.lock.unlock()
            }
            lock.lock()
            result = outcome
            lock.unlock()
            done.signal()
        }
        thread.start()
    }

    /// The outcome, once the server returns (nil after `seconds`).
    func outcome(within seconds: Double = 20) -> ReplayOutcome? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        done.signal()
        lock.lock()
        defer { lock.unlock() }
        return result
    }

    var events: [ReplayEvent] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }
}

/// A TCP connection to 127.0.0.1:`port`, or -1.
private func connectClient(port: UInt16) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = port.bigEndian
    addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let rc = withUnsafePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard rc == 0 else {
        close(fd)
        return -1
    }
    return fd
}

/// Everything the server sends on `fd`, parsed as a capture (the socket is closed after).
private func readStream(_ fd: Int32, limit seconds: Double = 20) -> (
    frames: [CapturedFrame], format: CaptureFormat?, error: CaptureError?
) {
    let input = ByteInput(fd: fd, ownsDescriptor: true)
    var frames: [CapturedFrame] = []
    var format: CaptureFormat? = nil
    do throws(CaptureError) {
        let waiter = try LiveStop()
        waiter.stop(after: seconds)  // a hung server fails the test instead of hanging it
        input.waiter = waiter
        let reader = try CaptureOpener.open(input: input)
        format = reader.format
        while let frame = try reader.next() { frames.append(frame) }
        return (frames, format, nil)
    } catch {
        return (frames, format, error)
    }
}

/// Every byte the server sends on `fd` until it closes the connection.
private func readAllBytes(_ fd: Int32) -> [UInt8] {
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            out += chunk[0..<n]
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            break
        }
    }
    close(fd)
    return out
}

/// A btsnoop H4 capture of `count` HCI events, `gap` microseconds apart.
private func spacedCapture(in dir: TemporaryDirectory, count: Int, gapMicros: Int64) -> String {
    var bytes = CaptureBytes.btsnoopHeader(datalink: 1002)
    for i in 0..<count {
        bytes += CaptureBytes.btsnoopRecord(
            [0x04, 0x0E, 0x04, 0x01, UInt8(truncatingIfNeeded: i), 0x0C, 0x00],
            flags: 3,
            unixMicros: 1_735_689_600_000_000 + Int64(i) * gapMicros
        )
    }
    return dir.write(bytes, to: "spaced-\(count)-\(gapMicros).btsnoop")
}

/// The file's frames that a stream of `datalink` carries.
private func expectedFrames(_ path: String, datalink: UInt32) -> [FrameEssentials] {
    CaptureFiles.readAll(path).frames.filter { f in
        datalink == 2001 ? MonitorRecord.opcode(for: f.kind, direction: f.direction) != nil : f.kind.isHCI
    }.map(FrameEssentials.init)
}

@Suite("replay server")
struct ReplayServerTests {
    @Test(
        "a client receives the capture's frames as a btsnoop stream",
        arguments: ["gatt-discovery.btsnoop", "gatt-discovery.pcapng", "adv-scan.pcap", "gatt-discovery-le.pklg"]
    )
    func servesFrames(name: String) throws {
        let path = TestPaths.projectCapture(name)
        let server = try ServerThread(path: path)
        #expect(server.server.datalink == .h4)
        let client = connectClient(port: server.port)
        try #require(client >= 0)
        let got = readStream(client)
        #expect(got.error == nil)
        #expect(got.format?.container == .btsnoop)
        #expect(got.format?.linkType == 1002)
        let expected = expectedFrames(path, datalink: 1002)
        #expect(expected.count > 40)
        #expect(got.frames.map(FrameEssentials.init) == expected)
        #expect(got.frames.map(\.number) == Array(1...got.frames.count))

        let outcome = try #require(server.outcome())
        #expect(outcome.sessions.count == 1)
        #expect(outcome.inputError == nil && outcome.serveError == nil && outcome.stopReason == nil)
        let session = try #require(outcome.sessions.first)
        #expect(session.frames == expected.count)
        guard case .complete = session.end else {
            Issue.record("session ended \(session.end)")
            return
        }
        #expect(session.peer.hasPrefix("127.0.0.1:"))
        if name.hasSuffix(".pklg") {
            // The PacketLogger note has no place in a datalink 1002 stream: counted.
            #expect(session.skipped == ["Note": 1])
            #expect(ReplayServer.skippedNote(session.skipped, datalink: .h4)?.contains("1 record not sent") == true)
        } else {
            #expect(session.skipped.isEmpty)
        }
        let events = server.events
        #expect(events.count == 2)
        if case .connected(let peer) = events.first { #expect(peer == session.peer) } else { Issue.record("\(events)") }
    }

    @Test("a Linux monitor capture is served as datalink 2001, with controllers and index records")
    func servesMonitor() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("monitor.pcap")
        let frames: [CapturedFrame] = [
            frame(.newIndex, .unknown, controller: 0, [0, 1, 1, 2, 3, 4, 5, 6] + Array("hci0\0\0\0\0".utf8), at: 0),
            frame(.note, .unknown, controller: nil, Array("note".utf8), at: 1),
            frame(.hciCommand, .hostToController, controller: 0, [0x03, 0x0C, 0x00], at: 2),
            frame(.hciEvent, .controllerToHost, controller: 1, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], at: 3),
            frame(.aclData, .controllerToHost, controller: 1, [0x01, 0x20, 0x01, 0x00, 0x09], at: 4),
            frame(.deleteIndex, .unknown, controller: 0, [], at: 5),
        ]
        let output = CaptureOutput(path: path, format: .pcap, layout: .monitor)
        for f in frames { try output.write(f) }
        try output.finish()

        let server = try ServerThread(path: path)
        #expect(server.server.datalink == .monitor)
        let client = connectClient(port: server.port)
        try #require(client >= 0)
        let got = readStream(client)
        #expect(got.error == nil)
        #expect(got.format?.linkType == 2001)
        #expect(got.frames.map(FrameEssentials.init) == frames.map(FrameEssentials.init))
        #expect(got.frames.map(\.controllerIndex) == [0, nil, 0, 1, 1, 0])
        #expect(server.outcome()?.sessions.first?.skipped.isEmpty == true)
    }

    @Test("--speed paces by the frames' timestamps; max does not")
    func pacing() throws {
        let dir = TemporaryDirectory()
        let path = spacedCapture(in: dir, count: 4, gapMicros: 100_000)  // spans 0.3 s
        for speed in [ReplaySpeed.factor(1), .factor(2), .max] {
            let server = try ServerThread(path: path, speed: speed)
            let start = LiveStop.now()
            let client = connectClient(port: server.port)
            try #require(client >= 0)
            let got = readStream(client)
            let seconds = Double(LiveStop.now() - start) / 1e9
            #expect(got.frames.count == 4)
            switch speed {
            case .factor(1): #expect(seconds >= 0.25 && seconds < 5, "speed 1 took \(seconds) s")
            case .factor: #expect(seconds >= 0.12 && seconds < 0.29, "speed 2 took \(seconds) s")
            case .max: #expect(seconds < 0.15, "max took \(seconds) s")
            }
            #expect(server.outcome() != nil)
        }
    }

    @Test("a stop request while waiting for a client returns promptly")
    func stopWhileWaiting() throws {
        let dir = TemporaryDirectory()
        let server = try ServerThread(path: spacedCapture(in: dir, count: 2, gapMicros: 10))
        Thread.sleep(forTimeInterval: 0.1)
        #expect(server.outcome(within: 0.05) == nil)  // still waiting
        let start = LiveStop.now()
        server.stop.request()
        let outcome = try #require(server.outcome(within: 5))
        #expect(Double(LiveStop.now() - start) / 1e9 < 1)
        #expect(outcome.stopReason == .requested)
        #expect(outcome.sessions.isEmpty)
    }

    @Test("a stop request while pacing ends the session at once")
    func stopWhilePacing() throws {
        let dir = TemporaryDirectory()
        let server = try ServerThread(
            path: spacedCapture(in: dir, count: 3, gapMicros: 10_000_000),
            speed: .factor(1)
        )
        let client = connectClient(port: server.port)
        try #require(client >= 0)
        defer { close(client) }
        Thread.sleep(forTimeInterval: 0.2)
        let start = LiveStop.now()
        server.stop.request()
        let outcome = try #require(server.outcome(within: 5))
        #expect(Double(LiveStop.now() - start) / 1e9 < 1)
        #expect(outcome.stopReason == .requested)
        let session = try #require(outcome.sessions.first)
        #expect(session.frames == 1)
        guard case .stopped = session.end else {
            Issue.record("session ended \(session.end)")
            return
        }
    }

    @Test("a client that disconnects ends its session, and --loop serves the next one")
    func disconnectAndLoop() throws {
        let dir = TemporaryDirectory()
        let path = spacedCapture(in: dir, count: 50, gapMicros: 20_000)  // 1 s at speed 1
        let server = try ServerThread(path: path, speed: .factor(1), loop: true)

        let first = connectClient(port: server.port)
        try #require(first >= 0)
        var header = [UInt8](repeating: 0, count: 16)
        #expect(header.withUnsafeMutableBytes { recv(first, $0.baseAddress, 16, Int32(MSG_WAITALL)) } == 16)
        #expect(Array(header[0..<8]) == Array("btsnoop\0".utf8))
        close(first)

        // The next client gets the whole capture.
        let second = connectClient(port: server.port)
        try #require(second >= 0)
        let got = readStream(second)
        #expect(got.error == nil)
        #expect(got.frames.count == 50)

        server.stop.request()
        let outcome = try #require(server.outcome())
        #expect(outcome.stopReason == .requested)
        #expect(outcome.sessions.count == 2)
        if let gone = outcome.sessions.first {
            guard case .disconnected = gone.end else {
                Issue.record("first session ended \(gone.end)")
                return
            }
            #expect(gone.frames < 50)
        }
        if let whole = outcome.sessions.last {
            #expect(whole.frames == 50)
            guard case .complete = whole.end else {
                Issue.record("second session ended \(whole.end)")
                return
            }
        }
    }

    @Test("a damaged input is served up to the damage, which is reported with its frame and offset")
    func damagedInput() throws {
        let dir = TemporaryDirectory()
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc.btsnoop"))))
        let path = dir.write(Array(original.prefix(original.count / 2)), to: "cut.btsnoop")
        let reference = CaptureFiles.readAll(path)
        let damage = try #require(reference.error)

        let server = try ServerThread(path: path, loop: true)
        let client = connectClient(port: server.port)
        try #require(client >= 0)
        let got = readStream(client)
        #expect(got.error == nil)
        #expect(got.frames.map(FrameEssentials.init) == reference.frames.map(FrameEssentials.init))

        // The damage ends the replay, --loop or not.
        let outcome = try #require(server.outcome())
        #expect(outcome.inputError?.code == damage.code)
        #expect(outcome.inputError?.frame == damage.frame)
        #expect(outcome.inputError?.offset == damage.offset)
        #expect(outcome.sessions.first?.frames == reference.frames.count)
    }

    @Test("addresses and speeds are parsed strictly")
    func parsing() throws {
        let good: [(String, String, UInt16)] = [
            ("tcp://127.0.0.1:8872", "127.0.0.1", 8872),
            ("TCP://localhost:0", "localhost", 0),
            ("tcp://[::1]:65535", "::1", 65535),
            ("tcp://[fe80::1%eth0]:9", "fe80::1%eth0", 9),
            ("tcp://host-1.example.com:80", "host-1.example.com", 80),
        ]
        for (text, host, port) in good {
            let endpoint = try TCPAddress(url: text)
            #expect(endpoint.host == host && endpoint.port == port, "\(text)")
        }
        #expect(try TCPAddress(url: "tcp://[::1]:80").description == "tcp://[::1]:80")
        let bad = [
            "127.0.0.1:8872", "udp://127.0.0.1:1", "tcp://127.0.0.1", "tcp://:80", "tcp://::1:80", "tcp://[::1]",
            "tcp://[::1:80", "tcp://[127.0.0.1]:80", "tcp://h:65536", "tcp://h:-1", "tcp://h:8x", "tcp://h:80/path",
            "tcp://h h:80", "tcp://h:",
        ]
        for text in bad {
            #expect(throws: SourceError.self, "\(text)") { try TCPAddress(url: text) }
        }
        #expect(try ReplaySpeed("max") == .max)
        #expect(try ReplaySpeed("2.5") == .factor(2.5))
        #expect(try ReplaySpeed("1").description == "1")
        for text in ["0", "-1", "fast", "nan", "inf", "", "1e9"] {
            #expect(throws: SourceError.self, "\(text)") { try ReplaySpeed(text) }
        }
    }

    @Test("an address in use cannot be served")
    func addressInUse() throws {
        let dir = TemporaryDirectory()
        let first = try ServerThread(path: spacedCapture(in: dir, count: 1, gapMicros: 1))
        defer {
            first.stop.request()
            _ = first.outcome()
        }
        let stop = try LiveStop()
        let second = ReplayServer(
            endpoint: TCPAddress(host: "127.0.0.1", port: first.port),
            speed: .max,
            loop: false,
            stop: stop
        ) { () throws(CaptureError) -> any FrameReader in
            try CaptureOpener.open(path: TestPaths.projectCapture("le-coc.btsnoop"))
        }
        #expect(throws: CaptureError.self) { try second.listen() }
    }
}

private func frame(_ kind: FrameKind, _ direction: Direction, controller: UInt16?, _ bytes: [UInt8], at ms: Int64)
    -> CapturedFrame
{
    CapturedFrame(
        number: 0,
        timestamp: Timestamp(unixMicroseconds: 1_735_689_600_000_000 + ms * 1000),
        direction: direction,
        controllerIndex: controller,
        kind: kind,
        bytes: bytes,
        originalLength: bytes.count,
        sourceOffset: 0
    )
}

// MARK: - The command line

/// The built bleinspect, running, with its standard error collected as it comes.
private final class RunningCommand: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var errorText = ""
    private let drained = DispatchSemaphore(value: 0)

    init(_ arguments: [String]) throws {
        process.executableURL = TestPaths.bleinspectBinary
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = err.fileHandleForReading
        Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.lock()
                errorText += String(decoding: data, as: UTF8.self)
                lock.unlock()
            }
            drained.signal()
        }.start()
    }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return errorText
    }

    /// The port of the "serving … on tcp://127.0.0.1:PORT" line, once it is printed.
    func servingPort(within seconds: Double = 20) -> UInt16? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            for line in stderr.split(separator: "\n") where line.contains("serving ") {
                guard let range = line.range(of: " on tcp://127.0.0.1:") else { continue }
                let digits = line[range.upperBound...].prefix { $0.isNumber }
                if let port = UInt16(digits) { return port }
            }
            if !process.isRunning { return nil }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// The exit status, once the process ends (nil after `seconds`, the process then killed).
    func exitStatus(within seconds: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)  // not SIGTERM: it may be blocked
            process.waitUntilExit()
            return nil
        }
        _ = drained.wait(timeout: .now() + 5)
        return process.terminationStatus
    }
}

@Suite("bleinspect replay")
struct ReplayCommandTests {
    @Test("serves a capture to a client, byte for byte, and prints where and what it served")
    func endToEnd() throws {
        let path = TestPaths.projectCapture("gatt-discovery.btsnoop")
        let run = try RunningCommand(["replay", path, "--serve", "tcp://127.0.0.1:0", "--speed", "max"])
        let port = try #require(run.servingPort(), "no serving line in: \(run.stderr)")
        #expect(run.stderr.contains("bleinspect: serving \(path) on tcp://127.0.0.1:\(port)"))
        let client = connectClient(port: port)
        try #require(client >= 0)
        let bytes = readAllBytes(client)
        // A btsnoop 1002 file served as datalink 1002 is sent as it is.
        #expect(bytes == [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(run.exitStatus() == 0)
        #expect(run.stderr.contains("served 100 frames to 127.0.0.1:"))
    }

    @Test(
        "bad addresses and speeds are usage errors",
        arguments: [
            ["--serve", "127.0.0.1:80"], ["--serve", "tcp://h:99999"], ["--serve", "tcp://h:1", "--speed", "0"],
            ["--serve", "tcp://h:1", "--speed", "quick"], [],
        ]
    )
    func usage(arguments: [String]) throws {
        let result = try Run.bleinspect(["replay", TestPaths.projectCapture("le-coc.btsnoop")] + arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!result.stderr.contains("serving"))
    }

    @Test("a missing input is reported before anything is served")
    func missingInput() throws {
        let result = try Run.bleinspect(["replay", "/nonexistent/x.btsnoop", "--serve", "tcp://127.0.0.1:0"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/nonexistent/x.btsnoop"))
        #expect(!result.stderr.contains("serving"))
    }

    @Test("a damaged input: the readable frames are sent, the damage reported, exit 65")
    func damaged() throws {
        let dir = TemporaryDirectory()
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc.btsnoop"))))
        let path = dir.write(Array(original.prefix(1000)), to: "cut.btsnoop")
        let reference = CaptureFiles.readAll(path)
        let damage = try #require(reference.error)
        let run = try RunningCommand(["replay", path, "--serve", "tcp://127.0.0.1:0", "--speed", "max"])
        let port = try #require(run.servingPort())
        let client = connectClient(port: port)
        try #require(client >= 0)
        let got = readStream(client)
        #expect(got.frames.map(FrameEssentials.init) == reference.frames.map(FrameEssentials.init))
        #expect(run.exitStatus() == 65)
        #expect(run.stderr.contains("bleinspect: \(path): \(damage)"))
        #expect(damage.frame != nil && damage.offset != nil)
    }

    @Test("SIGINT while waiting for a client stops it cleanly")
    func interrupt() throws {
        let run = try RunningCommand([
            "replay", TestPaths.projectCapture("le-coc.btsnoop"), "--serve", "tcp://127.0.0.1:0",
        ])
        _ = try #require(run.servingPort())
        run.process.interrupt()
        #expect(run.exitStatus(within: 5) == 0)
        #expect(run.stderr.contains("interrupted before any client connected"))
    }

    @Test("an address in use exits 73")
    func addressInUse() throws {
        let holder = try RunningCommand([
            "replay", TestPaths.projectCapture("le-coc.btsnoop"), "--serve", "tcp://127.0.0.1:0",
        ])
        let port = try #require(holder.servingPort())
        defer {
            holder.process.interrupt()
            _ = holder.exitStatus(within: 5)
        }
        let result = try Run.bleinspect([
            "replay", TestPaths.projectCapture("le-coc.btsnoop"), "--serve", "tcp://127.0.0.1:\(port)",
        ])
        #expect(result.status == 73)
        #expect(result.stderr.contains("cannot serve on tcp://127.0.0.1:\(port)"))
    }
}
