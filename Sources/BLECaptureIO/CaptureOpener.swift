public import BLECapture
import BLECapturePcap

#if canImport(Glibc)
    import Glibc
#endif

/// Opens any capture this program reads, choosing the reader from the content, never the name.
public enum CaptureOpener {
    /// Opens `path` (`-` for standard input) and returns a reader for it.
    public static func open(path: String) throws(CaptureError) -> any FrameReader {
        let input: ByteInput
        if path == "-" {
            input = ByteInput(fd: 0, ownsDescriptor: false)
        } else {
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw CaptureError(.unreadable, String(cString: strerror(errno)))
            }
            var st = stat()
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw CaptureError(.unreadable, "is a directory")
            }
            input = ByteInput(fd: fd, ownsDescriptor: true)
        }
        return try open(input: input)
    }

    /// Detects the format of `input` from its first bytes and returns a reader for it.
    public static func open(input: ByteInput) throws(CaptureError) -> any FrameReader {
        let have = try input.ensure(16)
        if have == 0 {
            throw CaptureError(.empty, "the file is empty")
        }
        let head = input.copy(from: 0, count: min(have, 16))
        if head.starts(with: BTSnoopReader.magic) {
            return try BTSnoopReader(input: input)
        }
        if head.count >= 4 {
            let magic = UInt32(head[0]) << 24 | UInt32(head[1]) << 16 | UInt32(head[2]) << 8 | UInt32(head[3])
            switch magic {
            case 0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1:
                return try PcapReader(input: input, container: .pcap)
            case 0x0A0D_0D0A:
                return try PcapReader(input: input, container: .pcapng)
            default:
                break
            }
        }
        if PacketLoggerReader.detectByteOrder(head) != nil {
            return try PacketLoggerReader(input: input)
        }
        let shown = head.prefix(8).map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: " ")
        throw CaptureError(
            .badMagic,
            "not a capture this program reads (starts with \(shown)); expected btsnoop, pcap, pcapng or PacketLogger",
            offset: 0
        )
    }
}
