import BLECapture
import BLEInspectTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `bleinspect` running as a child process, with its output read line by line as it
/// comes, so tests can check that each frame is printed as soon as it is fed.
final class LiveProcess {
    let process = Process()
    private let stdoutFD: Int32
    private let stderrPipe = Pipe()
    private var pending: [UInt8] = []
    private(set) var lines: [String] = []
    private let stdinPipe = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = TestPaths.bleinspectBinary
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = stderrPipe
        process.standardInput = stdinPipe
        stdoutFD = out.fileHandleForReading.fileDescriptor
        try process.run()
    }

    /// Writes to the child's standard input.
    func feedStdin(_ bytes: [UInt8]) {
        stdinPipe.fileHandleForWriting.write(Data(bytes))
    }

    func closeStdin() {
        try? stdinPipe.fileHandleForWriting.close()
    }

    /// Waits up to `timeout` seconds until standard output has at least `count` lines in all.
    @discardableResult
    func waitForLines(_ count: Int, timeout: Double = 10) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while lines.count < count {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var p = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(left * 1000) + 1) > 0 else { break }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            pending += chunk[0..<n]
            while let newline = pending.firstIndex(of: 0x0A) {
                lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        return lines
    }

    /// Standard error read so far by `waitForStderr`.
    private var stderrSoFar: [UInt8] = []

    /// Waits up to `timeout` seconds until standard error has shown `text`; true when it has.
    @discardableResult
    func waitForStderr(containing text: String, timeout: Double = 10) -> Bool {
        let fd = stderrPipe.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while !String(decoding: stderrSoFar, as: UTF8.self).contains(text) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(left * 1000) + 1) > 0 else { return false }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return false }
            stderrSoFar += chunk[0..<n]
        }
        return true
    }

    /// Sends `signal` and waits for the exit; returns the status and everything on stderr.
    func finish(signal: Int32? = nil, timeout: Double = 20) -> (status: Int32, stderr: String) {
        if let signal { kill(process.processIdentifier, signal) }
        waitForLines(Int.max, timeout: timeout)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("bleinspect did not exit within \(timeout) s; killed")
        }
        process.waitUntilExit()
        let err = stderrSoFar + stderrPipe.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: err, as: UTF8.self))
    }
}

/// A capture file split into its header and its records, so tests can feed it one frame at a
/// time: btsnoop, pcap and pcapng.
struct CaptureRecords {
    var header: [UInt8]
    var records: [[UInt8]]

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32be(_ i: Int) -> Int {
            Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        }
        func u32le(_ i: Int) -> Int {
            Int(bytes[i + 3]) << 24 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i])
        }
        var records: [[UInt8]] = []
        var i: Int
        if bytes.starts(with: Array("btsnoop\0".utf8)) {
            header = Array(bytes[0..<16])
            i = 16
            while i + 24 <= bytes.count {
                let n = 24 + u32be(i + 4)
                records.append(Array(bytes[i..<(i + n)]))
                i += n
            }
        } else if bytes.starts(with: [0xD4, 0xC3, 0xB2, 0xA1]) || bytes.starts(with: [0x4D, 0x3C, 0xB2, 0xA1]) {
            header = Array(bytes[0..<24])
            i = 24
            while i + 16 <= bytes.count {
                let n = 16 + u32le(i + 8)
                records.append(Array(bytes[i..<(i + n)]))
                i += n
            }
        } else if bytes.starts(with: [0x0A, 0x0D, 0x0D, 0x0A]) {
            // Little-endian pcapng: the section header and interface blocks are the header;
            // every Enhanced Packet Block is a record.
            var head: [UInt8] = []
            i = 0
            while i + 12 <= bytes.count {
                let n = u32le(i + 4)
                let block = Array(bytes[i..<(i + n)])
                if u32le(i) == 6 { records.append(block) } else if records.isEmpty { head += block }
                i += n
            }
            header = head
        } else if bytes.count >= 4 {
            // PacketLogger: each record is its length (4 bytes) and that many bytes; the byte
            // order is the one that gives a sensible first length.
            header = []
            let bigEndian = (9..<65_536).contains(u32be(0))
            i = 0
            while i + 4 <= bytes.count {
                let n = 4 + (bigEndian ? u32be(i) : u32le(i))
                guard i + n <= bytes.count else { break }
                records.append(Array(bytes[i..<(i + n)]))
                i += n
            }
        } else {
            throw POSIXError(.EINVAL)
        }
        self.records = records
    }
}
