import BLECapture
import BLECaptureIO
import BLEInspectCore
public import BLETestVectors
import Foundation

/// Cuts and corrupts captures at random offsets and decodes each variant the way `bleinspect
/// read` does (format detection, the reader, dissection, a filter, one-line and JSON output),
/// watching for hangs. Deterministic: a variant is fixed by the seed, the file's name and its
/// number, so any one can be made again (`bleinspect-fuzz sweep --only NAME:N --write PATH`).
public struct Sweep {
    public var seed: UInt64 = 0x0B1E_1A57
    public var variants = 1000
    /// A variant taking longer than this is a hang.
    public var timeLimit: Double = 30
    public init() {}

    /// The bytes of variant `number` of `original`, a capture named `name`: cut at a random
    /// offset, then from one to eight random changes before the cut (a byte set at random, or a
    /// run of up to four bytes set to 0x00 or 0xFF, which is what turns lengths extreme).
    public func variant(of original: [UInt8], name: String, number: Int) -> [UInt8] {
        var rng = SplitMix64(seed: seed ^ Self.fnv(name) ^ UInt64(truncatingIfNeeded: number) &* 0x9E37_79B9_7F4A_7C15)
        guard !original.isEmpty else { return [] }
        let cut = 1 + Int(rng.next() % UInt64(original.count))
        var bytes = Array(original.prefix(cut))
        let changes = 1 + Int(rng.next() % 8)
        for _ in 0..<changes {
            let at = Int(rng.next() % UInt64(bytes.count))
            let r = rng.next()
            switch r % 4 {
            case 0, 1:
                bytes[at] = UInt8(truncatingIfNeeded: r >> 8)
            default:
                let fill: UInt8 = r % 4 == 2 ? 0x00 : 0xFF
                for i in at..<min(bytes.count, at + 1 + Int((r >> 8) % 4)) { bytes[i] = fill }
            }
        }
        return bytes
    }

    /// What decoding one variant gave.
    public struct Outcome: Sendable {
        public var frames = 0
        public var damaged = false
        public var rejected = false
    }

    /// Decodes one capture's bytes through the whole read pipeline.
    public static func decode(_ bytes: [UInt8]) -> Outcome {
        var outcome = Outcome()
        let fd = bytes.withUnsafeBytes { ScratchFile.shared.fill($0) }
        guard let fd, var session = PipelineTarget.shared.session(renderers: [0, 2], filters: [2]) else {
            return outcome
        }
        let input = ByteInput(fd: fd, ownsDescriptor: false)
        do throws(CaptureError) {
            let reader = try CaptureOpener.open(input: input)
            while let frame = try reader.next() {
                outcome.frames += 1
                session.feed(frame)
            }
        } catch {
            _ = error.description
            if outcome.frames == 0 { outcome.rejected = true } else { outcome.damaged = true }
        }
        blackHole(session.output)
        return outcome
    }

    /// Totals over a sweep.
    public struct Totals: Sendable {
        public var captures = 0
        public var variants = 0
        public var frames = 0
        public var damaged = 0
        public var rejected = 0
        public var slowest: (name: String, number: Int, seconds: Double) = ("", 0, 0)
    }

    /// Sweeps every file of `paths`, printing a line per capture; nil after reporting a hang.
    public func run(_ paths: [String], log: (String) -> Void) -> Totals? {
        var totals = Totals()
        let watchdog = Watchdog(limit: timeLimit)
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                log("sweep: cannot read \(path)")
                continue
            }
            let original = [UInt8](data)
            let name = (path as NSString).lastPathComponent
            var frames = 0
            let started = Date()
            for number in 0..<variants {
                let bytes = variant(of: original, name: name, number: number)
                watchdog.arm("\(name):\(number)")
                let t0 = Date()
                let outcome = Self.decode(bytes)
                let seconds = Date().timeIntervalSince(t0)
                watchdog.disarm()
                if seconds > totals.slowest.seconds { totals.slowest = (name, number, seconds) }
                frames += outcome.frames
                totals.variants += 1
                if outcome.damaged { totals.damaged += 1 }
                if outcome.rejected { totals.rejected += 1 }
            }
            totals.captures += 1
            totals.frames += frames
            log(
                "sweep: \(name): \(variants) variants, \(frames) frames, "
                    + String(format: "%.1f s", Date().timeIntervalSince(started))
            )
        }
        return totals
    }

    /// FNV-1a of a name: a variant's seed does not depend on where the file lies.
    static func fnv(_ s: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h
    }
}

/// Ends the process, naming the variant, when one runs past the limit: a hang is a failure
/// that would otherwise never report.
final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var current: (name: String, since: Date)? = nil
    private let limit: Double

    init(limit: Double) {
        self.limit = limit
        // The sweep runs until the process ends, and so does its watchdog.
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                check()
            }
        }
        thread.start()
    }

    func arm(_ name: String) {
        lock.withLock { current = (name, Date()) }
    }

    func disarm() {
        lock.withLock { current = nil }
    }

    private func check() {
        let hung: String? = lock.withLock {
            guard let current, Date().timeIntervalSince(current.since) > limit else { return nil }
            return current.name
        }
        if let hung {
            FileHandle.standardError.write(Data("sweep: HANG: variant \(hung) ran over \(limit) s\n".utf8))
            exit(3)
        }
    }
}
