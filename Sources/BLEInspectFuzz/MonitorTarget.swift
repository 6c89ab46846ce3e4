import BLECapture
import BLECaptureLive
import BLEInspectCore

#if canImport(Glibc)
    import Glibc
#endif

/// The live reader's target: the input is a run of monitor-socket receives, each a 16-bit
/// little-endian length and that many bytes (a record as the kernel hands it over, header and
/// payload). A length of 0xFFFF is a receive that failed with ENOBUFS, the one error a live
/// capture reads on after. The first byte chooses whether one controller (hci0) or all are read.
enum MonitorTarget {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first, let stop = try? LiveStop() else { return }
        let channel = ScriptedChannel(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()))
        let reader = MonitorReader(channel: channel, controller: first & 1 == 0 ? nil : 0, stop: stop)
        var notices = 0
        reader.onNotice = { notice in
            notices &+= 1
            if case .damaged(let error) = notice { _ = error.description }
        }
        do throws(CaptureError) {
            try reader.start()
        } catch {
            _ = error.description
            return
        }
        ReaderTargets.drain(reader)
        blackHole((notices, reader.dropped, reader.controllers.count))
    }
}

/// A monitor channel that replays scripted receives, then reports the end (an empty record, as
/// a closed socketpair gives).
final class ScriptedChannel: MonitorChannel {
    private var receives: [(bytes: [UInt8], failed: Bool)] = []
    private var next = 0
    /// Never waited on: a receive is always ready.
    let fd: Int32 = -1

    init(_ bytes: UnsafeRawBufferPointer) {
        var i = 0
        while i + 2 <= bytes.count {
            let length = Int(bytes[i]) | Int(bytes[i + 1]) << 8
            i += 2
            if length == 0xFFFF {
                receives.append(([], true))
                continue
            }
            let end = min(bytes.count, i + length)
            receives.append((Array(bytes[i..<end]), false))
            i = end
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> MonitorReceive {
        guard next < receives.count else { return .record(length: 0, microseconds: nil) }
        let (bytes, failed) = receives[next]
        next += 1
        if failed { return .failed(ENOBUFS) }
        let copied = min(bytes.count, buffer.count)
        bytes.withUnsafeBytes { source in
            if let base = buffer.baseAddress, let from = source.baseAddress, copied > 0 {
                base.copyMemory(from: from, byteCount: copied)
            }
        }
        // An empty record would end the capture; the kernel never sends one.
        return .record(length: max(bytes.count, 1), microseconds: Int64(next) &* 1000)
    }

    /// The input that replays `records`, each a monitor record (header and payload).
    static func encode(_ records: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [0]
        for record in records {
            let r = record.prefix(0xFFFE)
            out += [UInt8(r.count & 0xFF), UInt8(r.count >> 8)]
            out += r
        }
        return out
    }
}
