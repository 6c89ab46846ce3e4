import BLEInspectCore
import Foundation
import Yams

/// A plan file that cannot be used: where (file, line, column, key path) and why. The
/// description reads `plan.yaml:12:7: adverts[0].tx_power: expected an integer in -128...127`.
public struct PlanError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    /// e.g. `adverts[0].service_uuids[1]`.
    public var keyPath: String?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, keyPath: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        var text = Quote.safe(file)
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if let keyPath { text += "\(keyPath): " }
        return text + message
    }
}

/// Why a plan file was not loaded.
public enum PlanLoadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Missing, a directory, or no permission (exit status 66).
    case unreadable(file: String, reason: String)
    /// Read but not a valid plan (exit status 65).
    case invalid(PlanError)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(Quote.safe(file)): cannot read the plan: \(reason)"
        case .invalid(let error): error.description
        }
    }
}

/// Plan files: YAML, or JSON (which YAML reads too). The schema is in docs/ADV-BUDGET.md.
public enum PlanFile {
    /// Reads and parses the plan file at `path`.
    public static func load(path: String) throws(PlanLoadError) -> [AdvertPlan] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(file: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .unreadable(file: path, reason: "it is a directory") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(file: path, reason: "permission denied or I/O error")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .invalid(PlanError(file: path, message: "the file is not UTF-8 text"))
        }
        do {
            return try parse(text, file: path)
        } catch {
            throw .invalid(error)
        }
    }

    /// Parses plan text; `file` names it in errors and in the adverts' source locations.
    public static func parse(_ text: String, file: String) throws(PlanError) -> [AdvertPlan] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw yamlError(error, file: file)
        } catch {
            throw PlanError(file: file, message: "not YAML or JSON")
        }
        guard let root else { throw PlanError(file: file, message: "the plan is empty; it needs an `adverts` list") }
        return try PlanReader(file: file).plans(root)
    }

    private static func yamlError(_ error: YamlError, file: String) -> PlanError {
        func located(_ problem: String, _ context: YamlError.Context?, _ mark: Mark) -> PlanError {
            let detail = context.map { " (\($0.text) at \($0.mark.line):\($0.mark.column))" } ?? ""
            return PlanError(
                file: file,
                line: mark.line,
                column: mark.column,
                message: "invalid YAML/JSON: \(problem)\(detail)"
            )
        }
        switch error {
        case .scanner(let context, let problem, let mark, _): return located(problem, context, mark)
        case .parser(let context, let problem, let mark, _): return located(problem, context, mark)
        case .composer(let context, let problem, let mark, _): return located(problem, context, mark)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.sorted().map { Quote.code($0) }.joined(separator: ", ")
            return PlanError(
                file: file,
                line: context.mark.line,
                column: context.mark.column,
                message: "duplicate key \(keys) in a mapping"
            )
        case .reader(let problem, let offset, _, let text):
            // The offset counts Characters from the start of the text (Yams).
            guard let offset, offset >= 0 else {
                return PlanError(file: file, message: "cannot read the text: \(problem)")
            }
            var line = 1
            var column = 1
            for c in text.prefix(offset) {
                if c == "\n" || c == "\r\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            return PlanError(file: file, line: line, column: column, message: "cannot read the text: \(problem)")
        default:
            return PlanError(file: file, message: "invalid YAML/JSON")
        }
    }
}

/// Walks the composed YAML tree, keeping key paths and positions for errors.
private struct PlanReader {
    let file: String

    static let advertKeys: Set<String> = [
        "id", "platforms", "local_name", "service_uuids", "manufacturer_data", "service_data", "tx_power",
        "appearance", "flags", "connectable", "discoverable", "ibeacon", "eddystone", "scan_response", "source",
    ]
    static let scanResponseKeys: Set<String> = [
        "local_name", "service_uuids", "manufacturer_data", "service_data", "tx_power", "appearance",
    ]

    func fail(_ node: Node?, _ path: String, _ message: String) -> PlanError {
        PlanError(file: file, line: node?.mark?.line, column: node?.mark?.column, keyPath: path, message: message)
    }

    func plans(_ root: Node) throws(PlanError) -> [AdvertPlan] {
        let top = try mapping(root, "(top level)", allowed: ["version", "adverts"])
        if let version = top["version"] { _ = try integer(version, "version", 1...1) }
        guard let list = top["adverts"] else {
            throw fail(root, "(top level)", "missing key `adverts` (a list of adverts)")
        }
        guard case .sequence(let sequence) = list, !sequence.isEmpty else {
            throw fail(list, "adverts", "expected a non-empty list of adverts")
        }
        var plans: [AdvertPlan] = []
        var ids: [String: Int] = [:]
        for (i, node) in sequence.enumerated() {
            let plan = try advert(node, "adverts[\(i)]")
            if let line = ids[plan.id] {
                throw fail(
                    node,
                    "adverts[\(i)].id",
                    "the id \(Quote.text(plan.id)) is already used by the advert at line \(line)"
                )
            }
            ids[plan.id] = node.mark?.line ?? 0
            plans.append(plan)
        }
        return plans
    }

    private func advert(_ node: Node, _ path: String) throws(PlanError) -> AdvertPlan {
        let m = try mapping(node, path, allowed: Self.advertKeys)
        guard let idNode = m["id"] else { throw fail(node, path, "missing key `id` (the advert's name in reports)") }
        let id = try string(idNode, "\(path).id")
        guard !id.isEmpty else { throw fail(idNode, "\(path).id", "the id is empty") }
        var plan = AdvertPlan(id: id)
        plan.source = node.mark.map { SourceLocation(file: file, line: $0.line, column: $0.column) }
        plan.data = try fields(m, path)
        if let n = m["scan_response"] {
            let sub = try mapping(n, "\(path).scan_response", allowed: Self.scanResponseKeys)
            plan.scanResponse = try fields(sub, "\(path).scan_response")
        }
        if let n = m["platforms"] { plan.platforms = try platforms(n, "\(path).platforms") }
        if let n = m["flags"] { plan.flags = UInt8(try integer(n, "\(path).flags", 0...0xFF)) }
        if let n = m["connectable"] { plan.connectable = try bool(n, "\(path).connectable") }
        if let n = m["discoverable"] { plan.discoverable = try bool(n, "\(path).discoverable") }
        if let n = m["ibeacon"] { plan.iBeacon = try iBeacon(n, "\(path).ibeacon") }
        if let n = m["eddystone"] { plan.eddystone = try eddystone(n, "\(path).eddystone") }
        if let n = m["source"] { plan.source = try source(n, "\(path).source") }
        return plan
    }

    private func fields(_ m: Node.Mapping, _ path: String) throws(PlanError) -> AdvertFields {
        var f = AdvertFields()
        if let n = m["local_name"] { f.localName = try string(n, "\(path).local_name") }
        if let n = m["service_uuids"] {
            f.serviceUUIDs = try list(n, "\(path).service_uuids") { (e, p) throws(PlanError) in try uuid(e, p) }
        }
        if let n = m["manufacturer_data"] {
            f.manufacturerData = try list(n, "\(path).manufacturer_data") { (e, p) throws(PlanError) in
                let sub = try mapping(e, p, allowed: ["company", "data"])
                return ManufacturerData(
                    company: UInt16(try integer(try required(sub, e, "company", p), "\(p).company", 0...0xFFFF)),
                    data: try hex(try required(sub, e, "data", p), "\(p).data")
                )
            }
        }
        if let n = m["service_data"] {
            f.serviceData = try list(n, "\(path).service_data") { (e, p) throws(PlanError) in
                let sub = try mapping(e, p, allowed: ["uuid", "data"])
                return ServiceData(
                    uuid: try uuid(try required(sub, e, "uuid", p), "\(p).uuid"),
                    data: try hex(try required(sub, e, "data", p), "\(p).data")
                )
            }
        }
        if let n = m["tx_power"] { f.txPower = Int8(try integer(n, "\(path).tx_power", -128...127)) }
        if let n = m["appearance"] { f.appearance = UInt16(try integer(n, "\(path).appearance", 0...0xFFFF)) }
        return f
    }

    private func iBeacon(_ node: Node, _ path: String) throws(PlanError) -> IBeacon {
        let m = try mapping(node, path, allowed: ["uuid", "major", "minor", "measured_power"])
        let uuidNode = try required(m, node, "uuid", path)
        let proximity = try uuid(uuidNode, "\(path).uuid")
        guard proximity.width == 16 else {
            throw fail(uuidNode, "\(path).uuid", "the proximity UUID must be a full 128-bit UUID")
        }
        return IBeacon(
            uuid: proximity,
            major: UInt16(try integer(try required(m, node, "major", path), "\(path).major", 0...0xFFFF)),
            minor: UInt16(try integer(try required(m, node, "minor", path), "\(path).minor", 0...0xFFFF)),
            measuredPower: Int8(
                try integer(try required(m, node, "measured_power", path), "\(path).measured_power", -128...127)
            )
        )
    }

    private func eddystone(_ node: Node, _ path: String) throws(PlanError) -> EddystoneFrame {
        let m = try mapping(node, path, allowed: ["uid", "url", "tlm"])
        guard m.count == 1, let first = m.first, let key = first.key.scalar?.string else {
            throw fail(node, path, "expected exactly one frame: `uid`, `url` or `tlm`")
        }
        let value = first.value
        let p = "\(path).\(key)"
        let frame: EddystoneFrame
        switch key {
        case "uid":
            let sub = try mapping(value, p, allowed: ["tx_power", "namespace", "instance"])
            let nsNode = try required(sub, value, "namespace", p)
            let namespace = try hex(nsNode, "\(p).namespace")
            guard namespace.count == 10 else {
                throw fail(nsNode, "\(p).namespace", "expected 10 bytes, got \(namespace.count)")
            }
            let instNode = try required(sub, value, "instance", p)
            let instance = try hex(instNode, "\(p).instance")
            guard instance.count == 6 else {
                throw fail(instNode, "\(p).instance", "expected 6 bytes, got \(instance.count)")
            }
            frame = .uid(
                txPower: Int8(try integer(try required(sub, value, "tx_power", p), "\(p).tx_power", -128...127)),
                namespace: namespace,
                instance: instance
            )
        case "url":
            let sub = try mapping(value, p, allowed: ["tx_power", "url"])
            let urlNode = try required(sub, value, "url", p)
            let url = try string(urlNode, "\(p).url")
            if case .failure(let error) = EddystoneURL.encode(url) { throw fail(urlNode, "\(p).url", error.message) }
            frame = .url(
                txPower: Int8(try integer(try required(sub, value, "tx_power", p), "\(p).tx_power", -128...127)),
                url: url
            )
        default:
            let sub = try mapping(value, p, allowed: ["battery_mv", "temperature", "adv_count", "uptime"])
            let tempNode = try required(sub, value, "temperature", p)
            guard let temperature = tempNode.float ?? tempNode.int.map(Double.init), temperature.isFinite,
                temperature >= -128, temperature < 128
            else {
                throw fail(tempNode, "\(p).temperature", "expected a number of °C in -128 ..< 128")
            }
            frame = .tlm(
                batteryMillivolts: UInt16(
                    try integer(try required(sub, value, "battery_mv", p), "\(p).battery_mv", 0...0xFFFF)
                ),
                temperature: temperature,
                advertCount: UInt32(
                    try integer(try required(sub, value, "adv_count", p), "\(p).adv_count", 0...0xFFFF_FFFF)
                ),
                uptimeTenths: UInt32(try integer(try required(sub, value, "uptime", p), "\(p).uptime", 0...0xFFFF_FFFF))
            )
        }
        return frame
    }

    private func source(_ node: Node, _ path: String) throws(PlanError) -> SourceLocation {
        let m = try mapping(node, path, allowed: ["file", "line", "column"])
        return SourceLocation(
            file: try string(try required(m, node, "file", path), "\(path).file"),
            line: try integer(try required(m, node, "line", path), "\(path).line", 1...Int(Int32.max)),
            column: try m["column"].map { (n) throws(PlanError) in try integer(n, "\(path).column", 1...Int(Int32.max))
            }
        )
    }

    private func platforms(_ node: Node, _ path: String) throws(PlanError) -> [Platform] {
        let names = Platform.allCases.map(\.rawValue).joined(separator: ", ")
        return try list(node, path) { (e, p) throws(PlanError) in
            let text = try string(e, p)
            guard let platform = Platform(rawValue: text) else {
                throw fail(e, p, "unknown platform \(Quote.text(text)) (expected one of: \(names))")
            }
            return platform
        }
    }

    // MARK: Scalars and containers

    private func mapping(_ node: Node, _ path: String, allowed: Set<String>) throws(PlanError) -> Node.Mapping {
        guard case .mapping(let m) = node else { throw fail(node, path, "expected a mapping (key: value pairs)") }
        for key in m.keys {
            guard let name = key.scalar?.string else { throw fail(key, path, "keys must be plain strings") }
            guard allowed.contains(name) else {
                throw fail(
                    key,
                    path,
                    "unknown key \(Quote.code(name)) (expected one of: \(allowed.sorted().joined(separator: ", ")))"
                )
            }
        }
        return m
    }

    private func required(_ m: Node.Mapping, _ node: Node, _ key: String, _ path: String) throws(PlanError) -> Node {
        guard let value = m[key] else { throw fail(node, path, "missing key `\(key)`") }
        return value
    }

    private func list<T>(
        _ node: Node,
        _ path: String,
        _ element: (Node, String) throws(PlanError) -> T
    ) throws(PlanError) -> [T] {
        guard case .sequence(let sequence) = node else { throw fail(node, path, "expected a list") }
        var out: [T] = []
        for (i, e) in sequence.enumerated() { out.append(try element(e, "\(path)[\(i)]")) }
        return out
    }

    private func string(_ node: Node, _ path: String) throws(PlanError) -> String {
        guard case .scalar(let s) = node, s.tag.rawValue != Tag.Name.null.rawValue else {
            throw fail(node, path, "expected a string")
        }
        return s.string
    }

    private func bool(_ node: Node, _ path: String) throws(PlanError) -> Bool {
        guard let value = node.bool else { throw fail(node, path, "expected true or false") }
        return value
    }

    /// An integer in `range`: YAML's integer forms (decimal, 0x hex, …) or a quoted "0x…" string,
    /// as JSON has no hex numbers.
    private func integer(_ node: Node, _ path: String, _ range: ClosedRange<Int>) throws(PlanError) -> Int {
        let expected = "expected an integer in \(range.lowerBound)...\(range.upperBound)"
        guard case .scalar(let s) = node else { throw fail(node, path, expected) }
        var value = node.int
        if value == nil {
            let text = s.string.lowercased()
            if text.hasPrefix("0x"), text.count > 2, text.count <= 18 { value = Int(text.dropFirst(2), radix: 16) }
        }
        guard let value else { throw fail(node, path, "\(expected), got \(Quote.text(s.string))") }
        guard range.contains(value) else { throw fail(node, path, "\(expected), got \(value)") }
        return value
    }

    private func uuid(_ node: Node, _ path: String) throws(PlanError) -> BluetoothUUID {
        let text = try string(node, path)
        guard let uuid = BluetoothUUID(text) else {
            throw fail(node, path, "\(Quote.text(text)) is not a UUID (4, 8 or 32 hex digits, dashes allowed)")
        }
        return uuid
    }

    /// Hex bytes: "4C000215", "4c 00 02 15", "4C:00:02:15" or "0x4C000215".
    private func hex(_ node: Node, _ path: String) throws(PlanError) -> [UInt8] {
        let text = try string(node, path)
        if let bytes = HexText.parse(text) { return bytes }
        let body = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : Substring(text)
        let onlyDigits = body.utf8.allSatisfy { HexText.value($0) != nil || [0x20, 0x3A, 0x2D, 0x5F].contains($0) }
        throw fail(
            node,
            path,
            onlyDigits
                ? "an odd number of hex digits" : "expected hex bytes (e.g. \"4C 00 02 15\"), got \(Quote.text(text))"
        )
    }
}
