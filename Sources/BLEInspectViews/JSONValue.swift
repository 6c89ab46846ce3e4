import BLEInspectCore
import BLEInspectRender

/// A JSON document the views build and print: objects keep their keys in the order given, so
/// the output is stable from run to run.
public indirect enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Int64)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func int<T: BinaryInteger>(_ v: T) -> JSONValue { .number(Int64(clamping: v)) }
    public static func optional<T: BinaryInteger>(_ v: T?) -> JSONValue {
        v.map { .number(Int64(clamping: $0)) } ?? .null
    }
    public static func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// The text, indented by two spaces per level, ending in a newline.
    public var text: String {
        var out = ""
        write(to: &out, indent: 0)
        out.append("\n")
        return out
    }

    /// The text on one line with no spaces (for NDJSON), ending in a newline.
    public var line: String {
        var out = ""
        write(to: &out, indent: nil)
        out.append("\n")
        return out
    }

    /// Writes the value; `indent` nil writes it compactly.
    private func write(to out: inout String, indent: Int?) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .number(let v): out.append(String(v))
        case .string(let s): out.append(JSONFrame.quote(s))
        case .array(let items):
            if items.isEmpty { return out.append("[]") }
            // Arrays of plain values stay on one line.
            guard let indent, !items.allSatisfy(\.isScalar) else {
                out.append("[")
                for (k, item) in items.enumerated() {
                    if k > 0 { out.append(indent == nil ? "," : ", ") }
                    item.write(to: &out, indent: indent.map { $0 + 2 })
                }
                return out.append("]")
            }
            out.append("[\n")
            for (k, item) in items.enumerated() {
                out.append(String(repeating: " ", count: indent + 2))
                item.write(to: &out, indent: indent + 2)
                out.append(k + 1 < items.count ? ",\n" : "\n")
            }
            out.append(String(repeating: " ", count: indent) + "]")
        case .object(let members):
            if members.isEmpty { return out.append("{}") }
            guard let indent else {
                out.append("{")
                for (k, (key, value)) in members.enumerated() {
                    if k > 0 { out.append(",") }
                    out.append(JSONFrame.quote(key) + ":")
                    value.write(to: &out, indent: nil)
                }
                return out.append("}")
            }
            out.append("{\n")
            for (k, (key, value)) in members.enumerated() {
                out.append(String(repeating: " ", count: indent + 2))
                out.append(JSONFrame.quote(key))
                out.append(": ")
                value.write(to: &out, indent: indent + 2)
                out.append(k + 1 < members.count ? ",\n" : "\n")
            }
            out.append(String(repeating: " ", count: indent) + "}")
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }
}

/// UUIDs with their names, as the views write them: the names the session's modules and plugins
/// gave (`Session.uuidNames`), else the SIG's (or a vendor's).
public struct UUIDText: Sendable {
    public let names: [BluetoothUUID: String]

    public init(names: [BluetoothUUID: String] = [:]) { self.names = names }

    /// A UUID's name: a plugin's or a module's, else the SIG's (or a vendor's).
    func name(_ u: BluetoothUUID) -> String? { FieldFormatter.uuidName(u, names: names) }

    /// The UUID and its name: `0x180F Battery`.
    func withName(_ u: BluetoothUUID) -> String {
        let text = ViewText.uuid(u, upperCase: true)
        return name(u).map { text + " " + $0 } ?? text
    }
}

/// How the views write values: UUIDs, addresses and handles as the rest of bleinspect does.
enum ViewText {
    /// `0x2A00` or `B1E15EC7-0000-4000-8000-000000000001` (text), lower case for JSON as `-T json`.
    static func uuid(_ u: BluetoothUUID, upperCase: Bool) -> String { ValueText.uuid(u, upperCase: upperCase) }

    static func address(_ a: BDAddr, upperCase: Bool) -> String { ValueText.address(a, upperCase: upperCase) }

    static func handle(_ h: UInt16) -> String { HexText.prefixed(UInt64(h), digits: 4) }

    /// A value for a terminal: quoted text when it is all printable UTF-8, else hex (the first
    /// `limit` bytes).
    static func value(_ bytes: [UInt8], limit: Int = 32) -> String {
        if !bytes.isEmpty, let s = String(validating: bytes, as: UTF8.self),
            s.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && !TerminalSafeText.isUnsafe($0) })
        {
            return "\"" + TerminalSafeText.escape(s) + "\""
        }
        let shown = Hex.string(bytes.prefix(limit))
        return bytes.count > limit ? shown + "… (\(bytes.count) bytes)" : (bytes.isEmpty ? "(empty)" : shown)
    }
}
