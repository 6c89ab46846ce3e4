import BLEInspectCore
import Foundation

/// One line of a key file (or a command-line value), for parsing with byte offsets in errors.
struct KeyLine {
    let source: String
    /// 1-based; 0 for a command-line value.
    let number: Int
    let text: Substring

    /// Bytes from the start of the line to `index`.
    func offset(of index: Substring.Index) -> Int { text.utf8.distance(from: text.startIndex, to: index) }

    func error(_ code: KeyError.Code, at index: Substring.Index, _ message: String) -> KeyError {
        KeyError(code, source: source, line: number, offset: offset(of: index), message)
    }

    /// The lines of `text` (LF or CRLF), numbered from 1.
    static func lines(of text: String, source: String) -> [KeyLine] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { i, line in
            KeyLine(source: source, number: i + 1, text: line.hasSuffix("\r") ? line.dropLast() : line)
        }
    }

    /// The text of the file at `path`, bounded by `KeyLimits.maximumFileSize`.
    static func read(_ path: String) throws(KeyError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw KeyError(.unreadable, source: path, line: 0, offset: 0, "cannot open the file")
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: KeyLimits.maximumFileSize + 1) else {
            throw KeyError(.unreadable, source: path, line: 0, offset: 0, "cannot read the file")
        }
        guard data.count <= KeyLimits.maximumFileSize else {
            throw KeyError(
                .unreadable,
                source: path,
                line: 0,
                offset: 0,
                "the file is larger than \(KeyLimits.maximumFileSize) bytes"
            )
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Hexadecimal digits, numbers and addresses within a line.
enum KeyField {
    /// `count` octets from the hexadecimal digits of `field` (an optional `0x` prefix), in the
    /// order the text gives them.
    static func octets(_ field: Substring, count: Int, in line: KeyLine, what: String) throws(KeyError) -> [UInt8] {
        let digits = field.hasPrefix("0x") || field.hasPrefix("0X") ? field.dropFirst(2) : field
        if let bad = digits.firstIndex(where: { !$0.isHexDigit || !$0.isASCII }) {
            throw line.error(
                .hex,
                at: bad,
                "\(what): '\(bad == digits.endIndex ? "" : String(digits[bad]))' is not a hexadecimal digit"
            )
        }
        guard digits.utf8.count == count * 2 else {
            throw line.error(
                .length,
                at: field.startIndex,
                "\(what) needs \(count * 2) hexadecimal digits (\(count) octets), got \(digits.utf8.count)"
            )
        }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var i = digits.startIndex
        while i < digits.endIndex {
            let j = digits.index(i, offsetBy: 2)
            guard let b = UInt8(digits[i..<j], radix: 16) else { throw line.error(.hex, at: i, "\(what): bad digits") }
            out.append(b)
            i = j
        }
        return out
    }

    /// A number, decimal or with a `0x` prefix hexadecimal, at most `maximum`.
    static func number(_ field: Substring, maximum: UInt64, in line: KeyLine, what: String) throws(KeyError) -> UInt64 {
        let hex = field.hasPrefix("0x") || field.hasPrefix("0X")
        guard let value = UInt64(hex ? field.dropFirst(2) : field, radix: hex ? 16 : 10), value <= maximum else {
            throw line.error(.number, at: field.startIndex, "\(what) '\(field)' is not a number from 0 to \(maximum)")
        }
        return value
    }

    /// A device address `aa:bb:cc:dd:ee:ff`.
    static func address(_ field: Substring, in line: KeyLine) throws(KeyError) -> BDAddr {
        guard let address = BDAddr(String(field)) else {
            throw line.error(.address, at: field.startIndex, "'\(field)' is not a device address (aa:bb:cc:dd:ee:ff)")
        }
        return address
    }
}
