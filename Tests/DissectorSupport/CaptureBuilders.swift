/// Builders for small capture files, so tests can make exactly the bytes they need.
public enum CaptureBytes {
    public static func be32(_ v: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
            UInt8(truncatingIfNeeded: v),
        ]
    }

    public static func le32(_ v: UInt32) -> [UInt8] { be32(v).reversed() }

    public static func be64(_ v: UInt64) -> [UInt8] {
        be32(UInt32(truncatingIfNeeded: v >> 32)) + be32(UInt32(truncatingIfNeeded: v))
    }

    /// A btsnoop file header.
    public static func btsnoopHeader(datalink: UInt32, version: UInt32 = 1) -> [UInt8] {
        Array("btsnoop\0".utf8) + be32(version) + be32(datalink)
    }

    /// One btsnoop record; `unixMicros` is converted to btsnoop's year-0 epoch.
    public static func btsnoopRecord(
        _ payload: [UInt8],
        flags: UInt32,
        unixMicros: Int64,
        originalLength: UInt32? = nil,
        includedLength: UInt32? = nil
    ) -> [UInt8] {
        let stamp = UInt64(bitPattern: unixMicros + 0x00DC_DDB3_0F2F_8000)
        var out: [UInt8] = be32(originalLength ?? UInt32(payload.count))
        out += be32(includedLength ?? UInt32(payload.count))
        out += be32(flags)
        out += be32(0)
        out += be64(stamp)
        out += payload
        return out
    }

    /// One PacketLogger record.
    public static func packetLoggerRecord(
        type: UInt8,
        _ payload: [UInt8],
        seconds: UInt32,
        micros: UInt32,
        bigEndian: Bool
    ) -> [UInt8] {
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? be32(v) : le32(v) }
        var out: [UInt8] = u32(UInt32(9 + payload.count))
        out += u32(seconds)
        out += u32(micros)
        out.append(type)
        out += payload
        return out
    }

    /// A classic pcap file header (microsecond magic, written big-endian).
    public static func pcapHeader(linkType: UInt32, snaplen: UInt32 = 65_535) -> [UInt8] {
        var out: [UInt8] = be32(0xA1B2_C3D4)
        out += [0, 2, 0, 4]
        out += be32(0)
        out += be32(0)
        out += be32(snaplen)
        out += be32(linkType)
        return out
    }

    /// One classic pcap record, big-endian.
    public static func pcapRecord(_ payload: [UInt8], seconds: UInt32, micros: UInt32, originalLength: UInt32? = nil)
        -> [UInt8]
    {
        var out: [UInt8] = be32(seconds)
        out += be32(micros)
        out += be32(UInt32(payload.count))
        out += be32(originalLength ?? UInt32(payload.count))
        out += payload
        return out
    }
}
