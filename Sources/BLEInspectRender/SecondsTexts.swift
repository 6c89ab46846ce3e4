/// The text of the whole seconds of the last two times a `TextBuffer` wrote with 100 seconds or
/// more (`appendSeconds`): a frame's epoch time and its time since the first frame, each the
/// same from frame to frame for as long as frames come within one second.
struct SecondsTexts {
    struct Entry {
        var seconds = UInt64.max
        var count = 0
        /// The digits, and room: three words.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
    }

    var first = Entry()
    var second = Entry()
    /// Which entry the next new value replaces.
    var replaceSecond = false

    /// The kept entry of `seconds`, if it is one of the two.
    @inline(__always)
    func entry(_ seconds: UInt64) -> Entry? {
        if first.seconds == seconds { return first }
        if second.seconds == seconds { return second }
        return nil
    }

    /// Keeps `digits` (at most 24 bytes) as the text of `seconds`, in place of the entry kept
    /// longer.
    mutating func keep(_ seconds: UInt64, digits: UnsafeRawBufferPointer) {
        guard digits.count <= MemoryLayout<(UInt64, UInt64, UInt64)>.size else { return }
        var entry = Entry(seconds: seconds, count: digits.count)
        withUnsafeMutableBytes(of: &entry.text) { $0.copyMemory(from: digits) }
        if replaceSecond { second = entry } else { first = entry }
        replaceSecond.toggle()
    }
}

extension TextBuffer {
    /// Appends whole seconds (`appendSeconds`): copied when they are one of the last two written.
    @inline(__always)
    mutating func appendWholeSeconds(_ seconds: UInt64) {
        guard seconds >= 100 else {
            appendDecimal(seconds)
            return
        }
        if let kept = lastSeconds.entry(seconds) {
            let p = UnsafeMutableRawPointer(reserve(24))
            p.storeBytes(of: kept.text.0, as: UInt64.self)
            p.storeBytes(of: kept.text.1, toByteOffset: 8, as: UInt64.self)
            p.storeBytes(of: kept.text.2, toByteOffset: 16, as: UInt64.self)
            advance(kept.count)
            return
        }
        let start = count
        appendDecimal(seconds)
        let written = bytes
        lastSeconds.keep(seconds, digits: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(written)[start...]))
    }
}
