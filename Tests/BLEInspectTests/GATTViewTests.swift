import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// `bleinspect gatt`, run as users run it, on the project's recordings and the shared captures.
@Suite("gatt view")
struct GATTViewTests {
    /// The JSON document `gatt --json` prints for `arguments`.
    static func gattJSON(_ arguments: [String]) throws -> (json: [String: Any], status: Int32, stderr: String) {
        let result = try Run.bleinspect(["gatt", "--json"] + arguments)
        let data = result.stdout
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (try #require(object), result.status, result.stderr)
    }

    static func devices(_ json: [String: Any]) -> [[String: Any]] { json["devices"] as? [[String: Any]] ?? [] }

    static func services(_ device: [String: Any]) -> [[String: Any]] { device["services"] as? [[String: Any]] ?? [] }

    static func characteristics(_ device: [String: Any]) -> [[String: Any]] {
        services(device).flatMap { $0["characteristics"] as? [[String: Any]] ?? [] }
    }

    @Test("gatt-discovery: the database the recording script serves, values, counts and the subscription")
    func gattDiscovery() throws {
        let (json, status, stderr) = try Self.gattJSON([TestPaths.projectCapture("gatt-discovery.btsnoop")])
        #expect(status == 0, "\(stderr)")
        #expect(json["schema"] as? String == "bleinspect.gatt/1")
        let devices = Self.devices(json)
        try #require(devices.count == 1)
        let device = devices[0]
        let peer = try #require(device["peer"] as? [String: Any])
        #expect(peer["address"] as? String == "c0:de:c0:de:00:02")
        #expect(peer["name"] as? String == "bleinspect-periph")
        #expect(device["server"] as? String == "peer")
        let connections = try #require(device["connections"] as? [[String: Any]])
        #expect(connections.map { $0["handle"] as? Int } == [1])
        #expect(connections.first?["frame"] as? Int != nil)
        // The services scripts/record_captures.py adds after GAP and GATT, in handle order.
        let services = Self.services(device).map {
            [$0["handle"] as? Int ?? -1, $0["end_handle"] as? Int ?? -1] as [Int]
        }
        let uuids = Self.services(device).compactMap { $0["uuid"] as? String }
        #expect(uuids == ["0x1800", "0x1801", "0x180f", "0x180a", "b1e15ec7-0000-4000-8000-000000000001"])
        #expect(services == [[1, 5], [6, 13], [14, 17], [18, 20], [21, 24]])
        let chars = Self.characteristics(device)
        let battery = try #require(chars.first { $0["uuid"] as? String == "0x2a19" })
        #expect(battery["property_names"] as? [String] == ["read", "notify"])
        let value = try #require(battery["value"] as? [String: Any])
        #expect(value["handle"] as? Int == battery["value_handle"] as? Int)
        #expect(value["reads"] as? Int == 1)
        #expect(value["notifications"] as? Int == 3)
        let last = try #require(value["last_value"] as? [String: Any])
        // BATTERY_LEVELS in the script: read 87, then notified 86, 85, 84.
        #expect(last["hex"] as? String == "54")
        #expect(last["via"] as? String == "notification")
        #expect((last["text"] as? String)?.contains("84") == true)
        let cccd = try #require((battery["descriptors"] as? [[String: Any]])?.first)
        #expect(cccd["type"] as? String == "0x2902")
        let subscription = try #require(cccd["subscription"] as? [String: Any])
        #expect(subscription["notify"] as? Bool == true)
        #expect(subscription["indicate"] as? Bool == false)
        let name = try #require(chars.first { $0["uuid"] as? String == "0x2a00" }?["value"] as? [String: Any])
        let nameValue = try #require(name["last_value"] as? [String: Any])
        #expect(
            nameValue["hex"] as? String == Data("bleinspect-periph".utf8).map { String(format: "%02x", $0) }.joined()
        )
        let custom = try #require(chars.first { $0["uuid"] as? String == "b1e15ec7-0001-4000-8000-000000000001" })
        #expect(custom["property_names"] as? [String] == ["read", "write"])
        let userDescription = try #require((custom["descriptors"] as? [[String: Any]])?.first)
        #expect(userDescription["type"] as? String == "0x2901")
        // Nothing was used without being discovered.
        #expect((device["other_attributes"] as? [Any])?.isEmpty == true)
        #expect(chars.allSatisfy { $0["inferred"] as? Bool == false })
    }

    @Test("frames without the discovery: what was used is inferred, not invented")
    func inferred() throws {
        let path = TestPaths.projectCapture("gatt-discovery.btsnoop")
        // Frame 83 is the first Read Request after the discovery.
        let (json, status, _) = try Self.gattJSON(["-Y", "frame.number >= 83", path])
        #expect(status == 0)
        let device = try #require(Self.devices(json).first)
        #expect(Self.services(device).isEmpty)
        #expect(device["discoveries"] as? [Int] == [])
        let other = try #require(device["other_attributes"] as? [[String: Any]])
        let handles = other.compactMap { $0["handle"] as? Int }
        // Device Name (0x0003) and Battery Level (0x0010) were read, never discovered in these
        // frames. The CCCD (0x0011) was found again by Find Information (#91) before the write.
        #expect(handles == [0x0003, 0x0010, 0x0011])
        for a in other where a["handle"] as? Int != 0x0011 {
            #expect(a["inferred"] as? Bool == true)
            #expect(a["kind"] as? String == "unknown")
            #expect(a["first_used_in"] as? Int != nil)
            #expect(a["discovered_in"] is NSNull)
        }
        let cccd = try #require(other.first { $0["handle"] as? Int == 0x0011 })
        #expect(cccd["inferred"] as? Bool == false)
        #expect(cccd["discovered_in"] as? Int == 91)
        #expect(cccd["kind"] as? String == "descriptor")
        #expect((cccd["subscription"] as? [String: Any])?["notify"] as? Bool == true)
        let text = try Run.bleinspect(["gatt", "-Y", "frame.number >= 83", path])
        #expect(text.stdoutText.contains("[inferred: used in #85, never discovered]"), "\(text.stdoutText)")
    }

    @Test("the text tree names services, characteristics and descriptors")
    func textTree() throws {
        let result = try Run.bleinspect(["gatt", TestPaths.projectCapture("gatt-discovery.btsnoop")])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "Device C0:DE:C0:DE:00:02 (random) \"bleinspect-periph\"")
        #expect(lines.contains("  0x000E–0x0011  Primary Service 0x180F Battery Service"))
        #expect(lines.contains { $0.hasPrefix("    0x000F  Characteristic 0x2A19 Battery Level  [read, notify]") })
        #expect(
            lines.contains {
                $0.hasPrefix("      0x0011  Descriptor 0x2902 Client Characteristic Configuration")
                    && $0.contains("subscribed: notifications")
            }
        )
    }

    @Test("the same database from every format of the recording")
    func formats() throws {
        let reference = try Self.gattJSON([TestPaths.projectCapture("gatt-discovery.btsnoop")]).json
        for name in ["gatt-discovery.pcapng", "gatt-discovery-be.pklg", "gatt-discovery-le.pklg"] {
            let other = try Self.gattJSON([TestPaths.projectCapture(name)]).json
            let a = Self.devices(reference).map(Self.services)
            let b = Self.devices(other).map(Self.services)
            // The PacketLogger files have one frame more (the header record), so frame numbers
            // differ; the handles and UUIDs may not.
            func shape(_ s: [[[String: Any]]]) -> [String] {
                s.flatMap { $0 }.map { "\($0["handle"] ?? "")-\($0["end_handle"] ?? "")-\($0["uuid"] ?? "")" }
            }
            #expect(shape(a) == shape(b), "\(name)")
        }
    }

    @Test("a damaged capture: the database so far, an error naming the frame, exit status 65")
    func damaged() throws {
        let dir = TemporaryDirectory()
        let source = try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("gatt-discovery.btsnoop")))
        // Cut in the middle of a record after the discovery.
        let cut = dir.write(Array(source.prefix(source.count - 300)), to: "cut.btsnoop")
        let (json, status, stderr) = try Self.gattJSON([cut])
        #expect(status == 65)
        #expect(stderr.contains("cut.btsnoop"), "\(stderr)")
        #expect(stderr.contains("frame"), "\(stderr)")
        let device = try #require(Self.devices(json).first)
        #expect(Self.services(device).count == 5)
    }

    @Test("no ATT traffic: an empty list, and a sentence in the text")
    func noGATT() throws {
        let path = TestPaths.projectCapture("adv-scan.btsnoop")
        let (json, status, _) = try Self.gattJSON([path])
        #expect(status == 0)
        #expect(Self.devices(json).isEmpty)
        let text = try Run.bleinspect(["gatt", path])
        #expect(text.stdoutText.hasPrefix("No GATT traffic"))
    }
}

/// `gatt` against the database the recording script served (captures/gatt-database.gatt.json,
/// written from Bumble's server, not from the capture).
@Suite("gatt view: the recorded database")
struct GATTDatabaseTests {
    /// "2A00" → "0x2a00"; 128-bit forms lower case, as `gatt --json` writes them.
    static func uuid(_ s: String) -> String { s.count == 4 ? "0x" + s.lowercased() : s.lowercased() }

    /// Every attribute `gatt --json` shows for the one device, by handle, with what placed it.
    static func flatten(_ device: [String: Any]) -> [Int: [String: Any]] {
        var out: [Int: [String: Any]] = [:]
        func add(_ a: [String: Any]?) {
            guard let a, let h = a["handle"] as? Int else { return }
            out[h] = a
        }
        for s in GATTViewTests.services(device) {
            var decl = s
            decl["kind"] = (s["primary"] as? Bool == true) ? "primary_service" : "secondary_service"
            add(decl)
            for inc in s["includes"] as? [[String: Any]] ?? [] {
                var i = inc
                i["kind"] = "include"
                add(i)
            }
            for c in s["characteristics"] as? [[String: Any]] ?? [] {
                var decl = c
                decl["kind"] = "characteristic"
                add(decl)
                add(c["value"] as? [String: Any])
                for d in c["descriptors"] as? [[String: Any]] ?? [] { add(d) }
            }
        }
        for a in device["other_attributes"] as? [[String: Any]] ?? [] { add(a) }
        return out
    }

    @Test("handles, kinds, UUIDs, properties, value handles, includes, values, counts, subscriptions")
    func matchesTheServedDatabase() throws {
        let oraclePath = TestPaths.projectCapture("gatt-database.gatt.json")
        let oracle = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: oraclePath))) as? [String: Any]
        )
        let (json, status, stderr) = try GATTViewTests.gattJSON([TestPaths.projectCapture("gatt-database.btsnoop")])
        #expect(status == 0, "\(stderr)")
        let devices = GATTViewTests.devices(json)
        try #require(devices.count == 1, "one device across both connections")
        let device = devices[0]
        let peer = try #require(device["peer"] as? [String: Any])
        #expect((peer["address"] as? String)?.uppercased() == oracle["address"] as? String)
        // Both connections got handle 0x0001; each is listed with its connection complete event.
        let connections = try #require(device["connections"] as? [[String: Any]])
        #expect(connections.map { $0["handle"] as? Int } == [1, 1])
        let ours = Self.flatten(device)
        let attributes = try #require(oracle["attributes"] as? [[String: Any]])
        #expect(ours.count == attributes.count, "handles: \(ours.keys.sorted())")
        for a in attributes {
            let h = try #require(a["handle"] as? Int)
            guard let mine = ours[h] else {
                Issue.record("handle \(h) (\(a["kind"] ?? "")) is missing")
                continue
            }
            let kind = a["kind"] as? String
            #expect(mine["inferred"] as? Bool == false, "handle \(h)")
            switch kind {
            case "primary_service", "secondary_service":
                #expect(mine["kind"] as? String == kind, "handle \(h)")
                #expect(mine["uuid"] as? String == Self.uuid(a["uuid"] as? String ?? ""), "handle \(h)")
                #expect(mine["end_handle"] as? Int == a["end_handle"] as? Int, "handle \(h)")
            case "characteristic":
                #expect(mine["kind"] as? String == "characteristic", "handle \(h)")
                #expect(mine["uuid"] as? String == Self.uuid(a["uuid"] as? String ?? ""), "handle \(h)")
                #expect(mine["properties"] as? Int == a["properties"] as? Int, "handle \(h)")
                #expect(mine["value_handle"] as? Int == a["value_handle"] as? Int, "handle \(h)")
            case "include":
                #expect(mine["kind"] as? String == "include", "handle \(h)")
                #expect(mine["start_handle"] as? Int == a["included_start"] as? Int, "handle \(h)")
                #expect(mine["end_handle"] as? Int == a["included_end"] as? Int, "handle \(h)")
                #expect(mine["uuid"] as? String == Self.uuid(a["uuid"] as? String ?? ""), "handle \(h)")
            case "value", "descriptor":
                #expect(mine["kind"] as? String == kind, "handle \(h)")
                #expect(mine["type"] as? String == Self.uuid(a["type"] as? String ?? ""), "handle \(h)")
            default:
                Issue.record("unknown kind \(kind ?? "nil") in the oracle")
            }
        }
        // What the central did, per value handle: counts and the last value seen.
        let activity = try #require(oracle["activity"] as? [String: [String: Any]])
        for (key, expected) in activity {
            let h = try #require(Int(key))
            let mine = try #require(ours[h], "handle \(h)")
            for count in ["reads", "writes", "notifications", "indications"] {
                #expect(mine[count] as? Int == expected[count] as? Int, "handle \(h) \(count)")
            }
            let last = mine["last_value"] as? [String: Any]
            #expect(last?["hex"] as? String == expected["last_value"] as? String, "handle \(h) value")
        }
        let subscriptions = try #require(oracle["subscriptions"] as? [String: String])
        for (key, hex) in subscriptions {
            let h = try #require(Int(key))
            let sub = ours[h]?["subscription"] as? [String: Any]
            let value = sub?["value"] as? Int
            let expected = Int(hex.prefix(2), radix: 16).map { $0 | (Int(hex.dropFirst(2), radix: 16) ?? 0) << 8 }
            #expect(value == expected, "CCCD \(h)")
        }
        // The Service Changed indication, and the rediscovery that followed it.
        let changes = try #require(device["service_changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["start_handle"] as? Int == 0x29)
        #expect(changes.first?["end_handle"] as? Int == 0x2B)
        #expect(ours.values.allSatisfy { $0["invalidated_in"] is NSNull || $0["invalidated_in"] == nil })
        // The first discovery, the rediscovery of the changed range, and the second connection's.
        #expect((device["discoveries"] as? [Int])?.count == 3)
    }
}
