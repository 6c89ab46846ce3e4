/// The `value` clang's JSON gives a string literal: the literal as C source (`"b\303\251\n"`),
/// with escapes; decoded to its text (UTF-8 bytes, invalid sequences replaced).
enum CStringLiteral {
    static func decode(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "\"")), bytes.count >= open + 2,
            bytes.last == UInt8(ascii: "\"")
        else { return nil }
        var body = bytes[(open + 1)..<(bytes.count - 1)].makeIterator()
        var output: [UInt8] = []
        var pending: UInt8?
        while let byte = pending ?? body.next() {
            pending = nil
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                continue
            }
            guard let escape = body.next() else { return nil }
            switch escape {
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "a"): output.append(0x07)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "v"): output.append(0x0B)
            case UInt8(ascii: "e"): output.append(0x1B)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = UInt32(escape - UInt8(ascii: "0"))
                for _ in 0..<2 {
                    guard let next = body.next() else { break }
                    guard (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(next) else {
                        pending = next
                        break
                    }
                    value = value * 8 + UInt32(next - UInt8(ascii: "0"))
                }
                output.append(UInt8(truncatingIfNeeded: value))
            case UInt8(ascii: "x"):
                var value: UInt32 = 0
                var digits = 0
                while let next = body.next() {
                    guard let digit = hexValue(next) else {
                        pending = next
                        break
                    }
                    value = (value & 0x0FFF_FFFF) * 16 + UInt32(digit)
                    digits += 1
                }
                guard digits > 0 else { return nil }
                output.append(UInt8(truncatingIfNeeded: value))
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                var value: UInt32 = 0
                for _ in 0..<(escape == UInt8(ascii: "u") ? 4 : 8) {
                    guard let next = body.next(), let digit = hexValue(next) else { return nil }
                    value = (value & 0x0FFF_FFFF) * 16 + UInt32(digit)
                }
                guard let scalar = Unicode.Scalar(value) else { return nil }
                output += Array(String(Character(scalar)).utf8)
            default:
                output.append(escape)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A `stringWithFormat:` format: literal pieces between conversions (`%%` is a literal `%`).
struct FormatString {
    enum Conversion: Equatable {
        /// `%@`
        case object
        /// `%d`, `%i`, `%u` (with length modifiers)
        case integer
        /// `%s`
        case cString
        /// Anything else (`%x`, `%f`, `*` widths, positional arguments): not computed here.
        case other
    }

    enum Piece: Equatable {
        case literal(String)
        case conversion(Conversion)
    }

    private(set) var pieces: [Piece] = []

    init(_ format: String) {
        var literal = ""
        var characters = Array(format)[...]
        while let character = characters.popFirst() {
            guard character == "%" else {
                literal.append(character)
                continue
            }
            if characters.first == "%" {
                characters.removeFirst()
                literal.append("%")
                continue
            }
            pieces.append(.literal(literal))
            literal = ""
            var simple = true
            var conversion: Conversion = .other
            scan: while let next = characters.popFirst() {
                if "-+ #0'123456789.hlqLzjt".contains(next) { continue }
                if next == "*" || next == "$" {
                    simple = false
                    continue
                }
                switch next {
                case "@": conversion = .object
                case "d", "i", "u", "D", "U": conversion = .integer
                case "s": conversion = .cString
                default: conversion = .other
                }
                break scan
            }
            pieces.append(.conversion(simple ? conversion : .other))
        }
        pieces.append(.literal(literal))
    }

    var conversions: [Conversion] {
        pieces.compactMap {
            if case .conversion(let conversion) = $0 { return conversion }
            return nil
        }
    }

    /// The literal text of the pieces in `range`, conversions left out.
    func literal(_ range: Range<Int>) -> String {
        pieces[range].map {
            if case .literal(let text) = $0 { return text }
            return ""
        }.joined()
    }

    /// The literal text before the first conversion.
    var prefix: String {
        literal(0..<(pieces.firstIndex { if case .conversion = $0 { true } else { false } } ?? pieces.count))
    }

    /// The literal text after the last conversion.
    var suffix: String {
        let last = pieces.lastIndex { if case .conversion = $0 { true } else { false } }
        return literal(last.map { ($0 + 1)..<pieces.count } ?? pieces.count..<pieces.count)
    }

    /// The text with each conversion replaced by its value, in order.
    func filled(_ values: [String]) -> String {
        var remaining = values[...]
        return pieces.map {
            switch $0 {
            case .literal(let text): text
            case .conversion: remaining.popFirst() ?? ""
            }
        }.joined()
    }
}
