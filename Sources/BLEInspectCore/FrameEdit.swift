/// A change a dissector makes to the frame it decodes, for writing the frame as it decoded it (a
/// decrypted link-layer packet, say): the bytes at `range` (of the frame as captured) replaced by
/// `bytes`.
public struct FrameEdit: Sendable, Hashable {
    public var range: Range<Int>
    public var bytes: [UInt8]

    public init(_ range: Range<Int>, _ bytes: [UInt8]) {
        self.range = range
        self.bytes = bytes
    }
}

/// One or two bytes to write at `offset` (a header's flag bits, say), as plain bits, so that the
/// per-packet information that carries it stays free of references.
public struct ByteMark: Sendable, Hashable {
    public var offset: Int
    public var first: UInt8
    public var second: UInt8?

    public init(at offset: Int, _ first: UInt8, _ second: UInt8? = nil) {
        self.offset = offset
        self.first = first
        self.second = second
    }

    /// The mark with `bits` flipped (the low octet in `first`, the high one in `second`).
    public func flipping(_ bits: UInt16) -> ByteMark {
        ByteMark(at: offset, first ^ UInt8(bits & 0xFF), second.map { $0 ^ UInt8(bits >> 8) })
    }

    /// The mark as a `FrameEdit`.
    public var edit: FrameEdit {
        if let second { return FrameEdit(offset..<offset + 2, [first, second]) }
        return FrameEdit(offset..<offset + 1, [first])
    }
}

extension CapturedFrame {
    /// The frame with `edits` applied (ranges of the bytes as captured, not overlapping); an edit
    /// outside the bytes is skipped. The original length changes by what the edits add or remove.
    public func applying(_ edits: [FrameEdit]) -> CapturedFrame {
        var out = self
        var delta = 0
        var bytes: [UInt8] = []
        bytes.reserveCapacity(self.bytes.count)
        var at = 0
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound })
        where edit.range.lowerBound >= at && edit.range.upperBound <= self.bytes.count {
            bytes += self.bytes[at..<edit.range.lowerBound]
            bytes += edit.bytes
            delta += edit.bytes.count - edit.range.count
            at = edit.range.upperBound
        }
        bytes += self.bytes[at...]
        out.bytes = bytes
        out.originalLength = max(0, originalLength + delta)
        return out
    }
}
