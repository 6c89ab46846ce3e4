import BLEInspectCore

/// The text of the last two 128-bit UUIDs a `TextBuffer` wrote in the 8-4-4-4-12 form, kept in
/// place: writing one again is a copy of 36 bytes.
struct UUIDTexts {
    /// 36 bytes of text and four of room, as five words.
    typealias Text = (UInt64, UInt64, UInt64, UInt64, UInt64)

    struct Entry {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var upperCase = false
        var valid = false
        var text: Text = (0, 0, 0, 0, 0)
    }

    var first = Entry()
    var second = Entry()
    /// Which entry the next new UUID replaces.
    var replaceSecond = false

    /// The kept text of `u` in that case, if it is one of the two.
    @inline(__always)
    func text(_ u: BluetoothUUID, upperCase: Bool) -> Text? {
        if first.valid && first.high == u.high && first.low == u.low && first.upperCase == upperCase {
            return first.text
        }
        if second.valid && second.high == u.high && second.low == u.low && second.upperCase == upperCase {
            return second.text
        }
        return nil
    }

    /// Keeps the text of `u` at `text` (40 readable bytes, of which the first 36 are the text), in
    /// place of the entry kept longer.
    mutating func keep(_ u: BluetoothUUID, upperCase: Bool, text: UnsafeRawPointer) {
        var entry = Entry(high: u.high, low: u.low, upperCase: upperCase, valid: true)
        withUnsafeMutableBytes(of: &entry.text) { $0.copyMemory(from: UnsafeRawBufferPointer(start: text, count: 40)) }
        if replaceSecond { second = entry } else { first = entry }
        replaceSecond.toggle()
    }
}
