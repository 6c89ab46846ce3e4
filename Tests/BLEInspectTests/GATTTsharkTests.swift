import BLEInspectTestSupport
import Foundation
import Testing

/// `gatt` on the shared real-world captures against tshark's decoding of the same discovery
/// responses: every service and characteristic declaration tshark shows is in the rebuilt
/// databases, and nothing else is.
@Suite(
    "gatt view against tshark",
    .enabled(if: TestPaths.sharedCapturesAvailable && Run.tshark != nil)
)
struct GATTTsharkTests {
    struct Service: Hashable, CustomStringConvertible {
        var start, end: Int
        var uuid: String
        var description: String { "\(start)-\(end) \(uuid)" }
    }

    struct Characteristic: Hashable, CustomStringConvertible {
        var handle, valueHandle, properties: Int
        var uuid: String
        var description: String { "\(handle)/\(valueHandle) 0x\(String(properties, radix: 16)) \(uuid)" }
    }

    static func list(_ s: String) -> [String] { s.isEmpty ? [] : s.split(separator: ",").map(String.init) }

    static func number(_ s: String) -> Int? {
        s.hasPrefix("0x") ? Int(s.dropFirst(2), radix: 16) : Int(s)
    }

    /// tshark prints a 128-bit btatt UUID as its bytes in wire order (least significant first).
    static func uuid128(_ wire: String) -> String {
        let hex = wire.replacingOccurrences(of: ":", with: "")
        var bytes: [String] = []
        var i = hex.startIndex
        while i < hex.endIndex, let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(String(hex[i..<j]))
            i = j
        }
        let h = bytes.reversed().joined()
        guard h.count == 32 else { return h }
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
            String(h[h.index(h.startIndex, offsetBy: r.lowerBound)..<h.index(h.startIndex, offsetBy: r.upperBound)])
        }
        return parts.joined(separator: "-").lowercased()
    }

    /// tshark's items of the discovery responses in `path`, from its PDML: per attribute data
    /// item, the fields it carries in the PDU. Fields tshark generates from its own knowledge
    /// (size 0, such as the attribute type it puts on each handle) are left out.
    static func theirs(_ path: String) throws -> (Set<Service>, Set<Characteristic>) {
        guard let tshark = Run.tshark else { return ([], []) }
        let pdml = try Run.program(
            tshark,
            ["-r", path, "-Y", "btatt.opcode == 0x11 || btatt.opcode == 0x09", "-T", "pdml"]
        ).stdoutText
        // A later discovery of the same attribute replaces the earlier one, as in `gatt`.
        var services: [String: Service] = [:]
        var characteristics: [String: Characteristic] = [:]
        var opcode = ""
        var item: [(String, String)]? = nil
        func finish() {
            guard let fields = item else { return }
            item = nil
            func values(_ name: String) -> [String] { fields.filter { $0.0 == name }.map(\.1) }
            let handles = values("btatt.handle").compactMap(number)
            let uuid = values("btatt.uuid16").first?.lowercased() ?? values("btatt.uuid128").first.map(uuid128)
            guard let uuid else { return }
            if opcode == "0x11", handles.count == 1, let end = values("btatt.group_end_handle").first.flatMap(number) {
                services["\(handles[0]) \(uuid)"] = Service(start: handles[0], end: end, uuid: uuid)
            }
            if opcode == "0x09", handles.count == 2,
                let p = values("btatt.characteristic_properties").first.flatMap(number)
            {
                characteristics["\(handles[0]) \(uuid)"] = Characteristic(
                    handle: handles[0],
                    valueHandle: handles[1],
                    properties: p,
                    uuid: uuid
                )
            }
        }
        for line in pdml.split(separator: "\n") {
            if line.contains("<packet>") {
                finish()
                opcode = ""
                continue
            }
            guard let name = attribute("name", of: line) else { continue }
            if name == "btatt.opcode" { opcode = attribute("show", of: line) ?? "" }
            if name == "btatt.attribute_data" {
                finish()
                item = []
            } else if name.hasPrefix("btatt."), attribute("size", of: line) != "0",
                let show = attribute("show", of: line)
            {
                item?.append((name, show))
            }
        }
        finish()
        return (Set(services.values), Set(characteristics.values))
    }

    /// The value of `key="…"` in a PDML line.
    static func attribute(_ key: String, of line: Substring) -> String? {
        guard let r = line.range(of: " \(key)=\"") else { return nil }
        let rest = line[r.upperBound...]
        guard let q = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<q])
    }

    static func ours(_ path: String) throws -> (Set<Service>, Set<Characteristic>) {
        // The same responses tshark's side reads: services found by UUID (Find By Type Value)
        // are left out there, so here too.
        let (json, _, _) = try GATTViewTests.gattJSON(["-Y", "btatt.opcode == 0x11 || btatt.opcode == 0x09", path])
        var services = Set<Service>()
        var characteristics = Set<Characteristic>()
        for device in GATTViewTests.devices(json) {
            for s in GATTViewTests.services(device) where s["primary"] as? Bool == true {
                // Services that only an include showed are not in tshark's service responses.
                guard let start = s["handle"] as? Int, let end = s["end_handle"] as? Int,
                    let uuid = s["uuid"] as? String
                else { continue }
                services.insert(Service(start: start, end: end, uuid: uuid))
            }
            let loose = (device["other_attributes"] as? [[String: Any]] ?? []).filter {
                $0["kind"] as? String == "characteristic"
            }
            for c in GATTViewTests.characteristics(device) + loose {
                guard let h = c["handle"] as? Int, let v = c["value_handle"] as? Int,
                    let p = c["properties"] as? Int, let uuid = c["uuid"] as? String
                else { continue }
                characteristics.insert(Characteristic(handle: h, valueHandle: v, properties: p, uuid: uuid))
            }
        }
        return (services, characteristics)
    }

    /// Link-layer captures are left out until the link-layer dissector exists.
    static let capturesWithDiscovery: [String] = ManifestEntry.all().filter { entry in
        !["NORDIC_BLE", "BLUETOOTH_LE_LL", "PPI"].contains { entry.linkType.contains($0) }
    }.map(\.name).filter { name in
        guard let (services, _) = try? theirs(TestPaths.sharedCaptures.appendingPathComponent(name).path) else {
            return false
        }
        return !services.isEmpty
    }

    @Test("services and characteristics match tshark's", arguments: capturesWithDiscovery)
    func matches(name: String) throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent(name).path
        let (theirServices, theirCharacteristics) = try Self.theirs(path)
        let (ourServices, ourCharacteristics) = try Self.ours(path)
        #expect(
            ourServices == theirServices,
            "only ours: \(ourServices.subtracting(theirServices)) only tshark's: \(theirServices.subtracting(ourServices))"
        )
        #expect(
            ourCharacteristics == theirCharacteristics,
            "only ours: \(ourCharacteristics.subtracting(theirCharacteristics)) only tshark's: \(theirCharacteristics.subtracting(ourCharacteristics))"
        )
    }

    @Test("the shared captures hold discovery to compare")
    func someCaptures() {
        #expect(Self.capturesWithDiscovery.count >= 8, "\(Self.capturesWithDiscovery)")
    }
}
