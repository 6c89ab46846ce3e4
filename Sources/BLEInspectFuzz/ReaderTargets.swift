import BLECapture
import BLECapturePcap
import BLEInspectCore

#if canImport(Glibc)
    import Glibc
#endif

/// The capture-reader targets: the input is a whole file, read through a descriptor as a real
/// file is (the readers take file descriptors, and libpcap a `FILE*` fed by one).
enum ReaderTargets {
    static func run(_ target: FuzzTarget, _ bytes: UnsafeRawBufferPointer) {
        guard let fd = ScratchFile.shared.fill(bytes) else { return }
        let input = ByteInput(fd: fd, ownsDescriptor: false)
        do throws(CaptureError) {
            let reader: any FrameReader
            switch target {
            case .btsnoop: reader = try BTSnoopReader(input: input)
            case .pklg: reader = try PacketLoggerReader(input: input)
            case .pcap: reader = try PcapReader(input: input, container: .pcap)
            default: reader = try PcapReader(input: input, container: .pcapng)
            }
            drain(reader)
        } catch {
            _ = error.description
        }
    }

    /// Reads every frame, touching what a consumer reads, until the end or an error.
    static func drain(_ reader: any FrameReader) {
        var sum = 0
        var frames = 0
        while frames < maximumFrames {
            do throws(CaptureError) {
                guard let frame = try reader.next() else { return }
                frames += 1
                sum &+= frame.bytes.count &+ frame.originalLength &+ Int(frame.timestamp.seconds & 0xFF)
                _ = frame.kind.name
            } catch {
                // Damage is reported with the file's frame and offset, and reading stops there.
                _ = error.description
                return
            }
        }
        blackHole(sum)
    }

    /// A bound on frames per input, so that no input can make a run slow (each record needs at
    /// least a few bytes, so this is never reached by an input of `maximumInput` bytes).
    static let maximumFrames = 1 << 20
}

/// Keeps a value alive so that the work computing it is not optimised away.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// One unlinked temporary file, refilled for each input: the readers take a descriptor, and a
/// regular file is what they normally get.
final class ScratchFile: @unchecked Sendable {
    static let shared = ScratchFile()
    private let fd: Int32

    private init() {
        var template = Array("/tmp/bleinspect-fuzz-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { p in p.baseAddress.map { mkstemp($0) } ?? -1 }
        fd = made
        if made >= 0 { template.withUnsafeBufferPointer { p in _ = p.baseAddress.map { unlink($0) } } }
    }

    /// The descriptor, holding exactly `bytes` and positioned at the start; nil if the file
    /// could not be made.
    func fill(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard fd >= 0, ftruncate(fd, 0) == 0 else { return nil }
        var written = 0
        while written < bytes.count {
            let n = pwrite(fd, bytes.baseAddress.map { $0 + written }, bytes.count - written, off_t(written))
            guard n > 0 else { return nil }
            written += n
        }
        guard lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        return fd
    }
}
