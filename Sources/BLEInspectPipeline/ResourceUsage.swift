import CCaptureShims
import Foundation

/// The process's own account of its memory, for `--resource-report`: the peak resident set size
/// the kernel recorded (VmHWM in /proc/self/status) and the bytes the C heap has handed out and
/// not yet taken back (mallinfo2's `uordblks`). Either is nil where the platform does not say.
public struct ResourceUsage: Sendable, Equatable {
    public var peakResidentKiB: Int?
    public var heapInUseKiB: Int?

    public init(peakResidentKiB: Int?, heapInUseKiB: Int?) {
        self.peakResidentKiB = peakResidentKiB
        self.heapInUseKiB = heapInUseKiB
    }

    /// The figures now.
    public static func current() -> ResourceUsage {
        ResourceUsage(peakResidentKiB: peakResident(), heapInUseKiB: heapInUse())
    }

    /// The one line `--resource-report` writes to standard error:
    /// `bleinspect: resources: peak-rss-kib=12345 heap-kib=2345` (`?` for an unknown figure).
    public var line: String {
        "bleinspect: resources: peak-rss-kib=\(peakResidentKiB.map(String.init) ?? "?") heap-kib=\(heapInUseKiB.map(String.init) ?? "?")"
    }

    /// VmHWM from /proc/self/status, in KiB.
    static func peakResident() -> Int? {
        // /proc files report a size of 0: read until the end rather than by the size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/status") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return vmHWM(in: String(decoding: data, as: UTF8.self))
    }

    /// The VmHWM figure of a /proc/PID/status text ("VmHWM:\t    1234 kB").
    static func vmHWM(in status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let number = line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return number.flatMap { Int($0) }
        }
        return nil
    }

    static func heapInUse() -> Int? {
        let bytes = bleinspect_heap_in_use()
        return bytes < 0 ? nil : Int(clamping: bytes / 1024)
    }
}
