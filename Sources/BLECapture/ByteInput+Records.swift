// The steps every length-prefixed record reader takes (btsnoop, PacketLogger): make the record's
// header available, then the whole record, then hand out its bytes and move past it.

extension ByteInput {
    /// Makes the next record's `count`-byte header available. Returns false at a clean end of the
    /// input (no byte left); throws `.truncated` ("record `what` cut short: n of `count` bytes")
    /// when only part of the header is there. `frame` is the record's number, for the error.
    public func ensureRecordHeader(_ count: Int, _ what: String, frame: Int) throws(CaptureError) -> Bool {
        let have = try ensure(count)
        if have == 0 { return false }
        guard have >= count else {
            throw CaptureError(
                .truncated,
                "record \(what) cut short: \(have) of \(count) bytes",
                frame: frame,
                offset: position
            )
        }
        return true
    }

    /// Makes the whole record (a `header`-byte header, then `length` bytes) available, or throws
    /// `.truncated` ("record cut short: n of `length` bytes").
    public func ensureRecord(header: Int, length: Int, frame: Int) throws(CaptureError) {
        let total = header + length
        let got = try ensure(total)
        guard got >= total else {
            throw CaptureError(
                .truncated,
                "record cut short: \(got - header) of \(length) bytes",
                frame: frame,
                offset: position
            )
        }
    }

    /// Copies the record's bytes from `from` to `total` into `out` (reusing its storage, as
    /// `copy(from:count:into:)`), then moves past the `total`-byte record.
    public func takeRecord(from: Int, total: Int, into out: inout [UInt8]) {
        copy(from: from, count: total - from, into: &out)
        consume(total)
    }
}
