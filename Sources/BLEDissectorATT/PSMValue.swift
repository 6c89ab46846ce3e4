import BLEInspectCore
import Foundation

/// A PSM published as an attribute value. Apple's L2CAP PSM characteristic holds a little-endian
/// uint16, but apps publish their own PSM characteristics in other forms: big-endian, decimal or
/// hex text, or JSON (`{"psm":129}`). `decode` recognises each one and names it.
struct PSMValue: Equatable {
    enum Encoding: UInt8 {
        case littleEndian = 1, bigEndian, decimalText, hexText, json

        static let names = ValueNames([
            (1, "little-endian uint16"), (2, "big-endian uint16"), (3, "ASCII decimal"), (4, "ASCII hex"),
            (5, "JSON"),
        ])
    }

    let psm: UInt16
    let encoding: Encoding
    /// The JSON member that held it.
    let member: String?

    /// LE PSMs run from 0x0001 to 0x00FF (Core Vol 3 Part A 4.22): the test that tells a
    /// big-endian value from a little-endian one.
    static func inLERange(_ v: UInt16) -> Bool { (0x0001...0x00FF).contains(v) }

    /// The PSM in `bytes`, or nil when no encoding fits.
    ///
    /// - Two bytes are a little-endian uint16, unless that is outside the LE range and the
    ///   big-endian reading is inside it; two digits that are neither are text.
    /// - Text (surrounding spaces, line ends and NULs ignored) is decimal (`129`), hex with `0x`
    ///   (`0x81`), or a JSON object with a `psm` member (any case; a number, or a string of one) or else
    ///   exactly one integer member.
    static func decode(_ bytes: ArraySlice<UInt8>) -> PSMValue? {
        if bytes.count == 2, let first = bytes.first, let last = bytes.last {
            let le = UInt16(first) | UInt16(last) << 8
            let be = UInt16(first) << 8 | UInt16(last)
            if inLERange(le) { return PSMValue(psm: le, encoding: .littleEndian, member: nil) }
            if inLERange(be) { return PSMValue(psm: be, encoding: .bigEndian, member: nil) }
            return text(bytes) ?? PSMValue(psm: le, encoding: .littleEndian, member: nil)
        }
        return text(bytes)
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> PSMValue? {
        let padding: Set<UInt8> = [0x00, 0x09, 0x0A, 0x0D, 0x20]
        guard let start = bytes.firstIndex(where: { !padding.contains($0) }),
            let end = bytes.lastIndex(where: { !padding.contains($0) })
        else { return nil }
        let trimmed = bytes[start...end]
        if trimmed.first == UInt8(ascii: "{") { return json(trimmed) }
        guard trimmed.count <= 6, let s = String(bytes: trimmed, encoding: .ascii) else { return nil }
        if s.hasPrefix("0x") || s.hasPrefix("0X") {
            let digits = s.dropFirst(2)
            guard (1...4).contains(digits.count), let v = UInt16(digits, radix: 16) else { return nil }
            return PSMValue(psm: v, encoding: .hexText, member: nil)
        }
        guard s.allSatisfy(\.isASCII), s.allSatisfy(\.isNumber), let v = UInt16(s) else { return nil }
        return PSMValue(psm: v, encoding: .decimalText, member: nil)
    }

    /// Values longer than this, or nested deeper than 4, are not parsed as JSON.
    static let maximumJSONSize = 1024

    private static func json(_ bytes: ArraySlice<UInt8>) -> PSMValue? {
        guard bytes.count <= maximumJSONSize, JSONNesting.depth(bytes) <= 4,
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { return nil }
        var integers: [(String, UInt16)] = []
        for (key, value) in object {
            if let string = value as? String, key.lowercased() == "psm",
                let inner = text(Array(string.utf8)[...]), inner.encoding != .json
            {
                integers.append((key, inner.psm))
                continue
            }
            // JSONSerialization makes true and false NSNumbers of C type `c`.
            guard let n = value as? NSNumber, n.objCType.pointee != 0x63 else { continue }
            let d = n.doubleValue
            guard d == d.rounded(), d >= 0, d <= 0xFFFF else { continue }
            integers.append((key, UInt16(d)))
        }
        integers.sort { $0.0 < $1.0 }
        if let named = integers.first(where: { $0.0.lowercased() == "psm" }) {
            return PSMValue(psm: named.1, encoding: .json, member: named.0)
        }
        guard integers.count == 1, let only = integers.first else { return nil }
        return PSMValue(psm: only.1, encoding: .json, member: only.0)
    }
}
