import BLECapture
import BLEInspectTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `bleinspect replay --serve` running as a process, with the address it serves on.
final class ReplayProcess {
    let process = Process()
    let address: String

    init(_ file: String, speed: String) throws {
        process.executableURL = TestPaths.bleinspectBinary
        process.arguments = ["replay", file, "--serve", "tcp://127.0.0.1:0", "--speed", speed]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The first stderr line names the port it listens on.
        let fd = err.fileHandleForReading.fileDescriptor
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("\n") && Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 1000) >= 0 else { break }
            var byte: UInt8 = 0
            if p.revents != 0 {
                guard read(fd, &byte, 1) == 1 else { break }
                text.append(Character(UnicodeScalar(byte)))
            }
        }
        guard let range = text.range(of: "tcp://127.0.0.1:[0-9]+", options: .regularExpression) else {
            process.terminate()
            throw POSIXError(.EADDRNOTAVAIL)
        }
        address = String(text[range])
    }

    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("live tcp:// against replay --serve", .serialized)
struct LiveTCPTests {
    @Test(
        "live tcp:// shows what read shows, for btsnoop and pcapng sources",
        arguments: ["le-coc.btsnoop", "gatt-discovery.pcapng", "adv-scan.pcap"]
    )
    func sameAsRead(name: String) throws {
        let path = TestPaths.projectCapture(name)
        let replay = try ReplayProcess(path, speed: "max")
        let fields = [
            "-T", "fields", "-e", "frame.number", "-e", "frame.len", "-e", "btatt.opcode", "-e", "btl2cap.cid",
        ]
        let live = try LiveProcess(["live", replay.address] + fields)
        let (status, stderr) = live.finish()
        #expect(status == 0, "\(stderr)")
        #expect(replay.waitForExit() == 0)
        let read = try Run.bleinspect(["read", path] + fields)
        #expect(!live.lines.isEmpty)
        #expect(live.lines.joined(separator: "\n") + "\n" == read.stdoutText)
    }

    @Test("paced replay arrives frame by frame: the first lines are out long before the stream ends")
    func pacedStream() throws {
        // le-coc-stall spans about 4 s of recorded time; at speed 2 the stream lasts about 2 s.
        let path = TestPaths.projectCapture("le-coc-stall.btsnoop")
        let replay = try ReplayProcess(path, speed: "2")
        let started = Date()
        let live = try LiveProcess(["live", replay.address, "-T", "fields", "-e", "frame.number"])
        let first = live.waitForLines(1, timeout: 10)
        let firstAt = Date().timeIntervalSince(started)
        #expect(first.first == "1")
        let (status, _) = live.finish()
        let total = Date().timeIntervalSince(started)
        #expect(status == 0)
        #expect(replay.waitForExit() == 0)
        #expect(total >= 1.5, "the replay was not paced")
        #expect(firstAt < total - 1.0, "the first frame waited for the rest of the stream")
        let count = try Run.bleinspect(["read", path, "--count"]).stdoutText
        #expect(live.lines.count == Int(count.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("a TCP server that is not there gives one line and exit 66")
    func refused() throws {
        // A port that was just free: bind, read the number, close.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, length) == 0 ? getsockname(fd, sa, &length) : -1
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        close(fd)
        let result = try Run.bleinspect(["live", "tcp://127.0.0.1:\(port)"])
        #expect(result.status == 66)
        #expect(
            result.stderr
                == "bleinspect: tcp://127.0.0.1:\(port): cannot connect to tcp://127.0.0.1:\(port): Connection refused\n"
        )
    }
}
