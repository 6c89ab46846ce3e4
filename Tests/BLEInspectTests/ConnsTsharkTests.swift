import BLEInspectTestSupport
import Foundation
import Testing

/// `conns` on the shared real-world HCI captures against tshark's decoding of the same events:
/// each connection's start, end, reason, role and parameter updates, the request→response
/// times tshark pairs with `btatt.request_in_frame` (tshark 4.0 leaves Error Responses unpaired:
/// this test pairs each with the request outstanding in the other direction whose opcode the
/// error names, as ATT allows one outstanding request per client), and the first
/// advertisement from the peer.
@Suite(
    "conns view against tshark",
    .enabled(if: TestPaths.sharedCapturesAvailable && Run.tshark != nil)
)
struct ConnsTsharkTests {
    struct Connection: Equatable, CustomStringConvertible {
        var handle: Int
        var start: Int
        var end: Int?
        var reason: Int?
        var role: String?
        /// (frame, interval µs, latency, timeout ms) of the connection and each update.
        var parameters: [[Int]] = []
        var responseTimes: [Int] = []
        var peer: String?
        var firstAdvertisement: Int?

        var description: String {
            "handle \(handle) frames \(start)–\(end.map(String.init) ?? "open") reason \(reason.map(String.init) ?? "-") "
                + "role \(role ?? "-") parameters \(parameters) responses \(responseTimes.count) advert \(firstAdvertisement.map(String.init) ?? "-")"
        }

        /// What both sides report of the response times: count, min, median, max.
        var timeSummary: [Int] {
            let s = responseTimes.sorted()
            guard let lo = s.first, let hi = s.last else { return [0] }
            let median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
            return [s.count, lo, median, hi]
        }
    }

    static let fields = [
        "frame.number", "frame.time_epoch", "bthci_evt.code", "bthci_evt.le_meta_subevent", "bthci_evt.status",
        "bthci_evt.connection_handle", "bthci_evt.reason", "bthci_evt.role", "bthci_evt.le_con_interval",
        "bthci_evt.le_con_latency", "bthci_evt.le_supv_timeout", "bthci_evt.link_type", "bthci_evt.bd_addr",
        "bthci_acl.chandle", "btatt.opcode", "btatt.request_in_frame",
        "btatt.req_opcode_in_error", "hci_h4.direction",
    ]

    static func number(_ s: Substring) -> Int? {
        s.hasPrefix("0x") ? Int(s.dropFirst(2), radix: 16) : Int(s)
    }

    /// `1735689600.283456000` → microseconds.
    static func micros(_ s: String) -> Int? {
        let parts = s.split(separator: ".")
        guard parts.count == 2, let seconds = Int(parts[0]) else { return nil }
        let fraction = String(parts[1].prefix(6)).padding(toLength: 6, withPad: "0", startingAt: 0)
        return Int(fraction).map { seconds * 1_000_000 + $0 }
    }

    /// The connections tshark's fields show, worked out here from its rows alone.
    static func theirs(_ path: String) throws -> [Connection] {
        let rows = try Run.tsharkFields(path, fields)
        func v(_ row: [String], _ name: String) -> Int? {
            guard let i = fields.firstIndex(of: name), i < row.count else { return nil }
            return row[i].split(separator: ",").first.flatMap(number)
        }
        func all(_ row: [String], _ name: String) -> [String] {
            guard let i = fields.firstIndex(of: name), i < row.count else { return [] }
            return row[i].split(separator: ",").map(String.init)
        }
        let requests: Set<Int> = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20]
        // (handle, direction) → the request frame and opcode still waiting for an answer.
        var pending: [[Int]: (frame: Int, opcode: Int)] = [:]
        let responses: Set<Int> = [0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21]
        var times: [Int: Int] = [:]
        var open: [Int: Int] = [:]  // handle → index in `done`
        var done: [Connection] = []
        var adverts: [String: Int] = [:]
        for row in rows {
            guard let frame = v(row, "frame.number") else { continue }
            if let t = all(row, "frame.time_epoch").first.flatMap(micros) { times[frame] = t }
            let code = v(row, "bthci_evt.code")
            let sub = v(row, "bthci_evt.le_meta_subevent")
            let status = v(row, "bthci_evt.status")
            let handle = v(row, "bthci_evt.connection_handle")
            if code == 0x3E, let sub, [0x02, 0x0B, 0x0D].contains(sub) {
                for a in all(row, "bthci_evt.bd_addr") where adverts[a] == nil { adverts[a] = frame }
            }
            let leComplete = code == 0x3E && [0x01, 0x0A, 0x29].contains(sub ?? -1)
            let bredrComplete = code == 0x03 && v(row, "bthci_evt.link_type") == 1
            if (leComplete || bredrComplete), status == 0, let handle {
                if let i = open[handle] { done[i].end = frame }
                var c = Connection(handle: handle, start: frame)
                c.peer = all(row, "bthci_evt.bd_addr").first
                if leComplete {
                    c.role = v(row, "bthci_evt.role").map { $0 == 0 ? "central" : "peripheral" }
                    c.parameters.append(parameters(frame, row, v))
                }
                if let peer = c.peer { c.firstAdvertisement = adverts.removeValue(forKey: peer) }
                open[handle] = done.count
                done.append(c)
            } else if code == 0x3E, sub == 0x03, status == 0, let handle, let i = open[handle] {
                done[i].parameters.append(parameters(frame, row, v))
            } else if code == 0x05, status == 0, let handle, let i = open[handle] {
                done[i].end = frame
                done[i].reason = v(row, "bthci_evt.reason")
                open[handle] = nil
                if let peer = done[i].peer { adverts[peer] = nil }
            }
            guard let op = v(row, "btatt.opcode"), let h = v(row, "bthci_acl.chandle") else { continue }
            let direction = v(row, "hci_h4.direction") ?? -1
            var request: Int? = nil
            if requests.contains(op) {
                pending[[h, direction]] = (frame, op)
            } else if responses.contains(op) {
                request = v(row, "btatt.request_in_frame")
                pending[[h, 1 - direction]] = nil
            } else if op == 0x01, let asked = pending[[h, 1 - direction]],
                asked.opcode == v(row, "btatt.req_opcode_in_error")
            {
                request = asked.frame
                pending[[h, 1 - direction]] = nil
            }
            if let request, let i = open[h], let t0 = times[request], let t1 = times[frame] {
                done[i].responseTimes.append(t1 - t0)
            }
        }
        return done
    }

    static func parameters(_ frame: Int, _ row: [String], _ v: ([String], String) -> Int?) -> [Int] {
        [
            frame, (v(row, "bthci_evt.le_con_interval") ?? -1) * 1250, v(row, "bthci_evt.le_con_latency") ?? -1,
            (v(row, "bthci_evt.le_supv_timeout") ?? -1) * 10,
        ]
    }

    /// The connections `conns --json` shows that began in the capture.
    static func ours(_ path: String) throws -> [Connection] {
        let result = try Run.bleinspect(["conns", "--json", path])
        let top = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let list = try #require(top["connections"] as? [[String: Any]])
        func int(_ v: Any?) -> Int? { (v as? NSNumber)?.intValue }
        return list.compactMap { c -> Connection? in
            guard let start = (c["start"] as? [String: Any]).flatMap({ int($0["frame"]) }),
                let handle = int(c["handle"])
            else { return nil }
            var r = Connection(handle: handle, start: start)
            let ending = c["ended_by"] as? String
            if ending != "capture_end" { r.end = (c["end"] as? [String: Any]).flatMap { int($0["frame"]) } }
            r.reason = int(c["reason"])
            r.role = c["local_role"] as? String
            r.peer = (c["peer"] as? [String: Any])?["address"] as? String
            r.firstAdvertisement = (c["first_advertisement"] as? [String: Any]).flatMap { int($0["frame"]) }
            for p in c["parameters"] as? [[String: Any]] ?? [] {
                let event = p["event"] as? String
                guard event == "connection" || event == "update" else { continue }
                r.parameters.append(
                    [
                        int(p["frame"]) ?? 0, int(p["interval_us"]) ?? -1, int(p["latency"]) ?? -1,
                        int(p["supervision_timeout_ms"]) ?? -1,
                    ]
                )
            }
            if let times = (c["att"] as? [String: Any])?["response_time_us"] as? [String: Any] {
                let count = int(times["count"]) ?? 0
                r.responseTimes =
                    count == 0 ? [] : [int(times["min"]) ?? -1, int(times["median"]) ?? -1, int(times["max"]) ?? -1]
                r.responseTimes.insert(count, at: 0)
            }
            return r
        }
    }

    static let hciCaptures: [String] = ManifestEntry.all().filter { entry in
        !["NORDIC_BLE", "BLUETOOTH_LE_LL", "PPI"].contains { entry.linkType.contains($0) }
    }.map(\.name)

    @Test("connections, parameters, response times and first adverts agree with tshark", arguments: hciCaptures)
    func agrees(capture: String) throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent(capture).path
        let theirs = try Self.theirs(path)
        let ours = try Self.ours(path)
        #expect(ours.count == theirs.count, "\(capture): \(ours) vs \(theirs)")
        for (a, b) in zip(ours, theirs) {
            #expect(a.handle == b.handle && a.start == b.start, "\(capture)")
            #expect(a.end == b.end, "\(capture) connection at \(b.start)")
            #expect(a.reason == b.reason, "\(capture) connection at \(b.start)")
            #expect(a.role == b.role, "\(capture) connection at \(b.start)")
            #expect(a.parameters == b.parameters, "\(capture) connection at \(b.start)")
            #expect(a.responseTimes == b.timeSummary, "\(capture) connection at \(b.start): count, min, median, max")
            #expect(a.firstAdvertisement == b.firstAdvertisement, "\(capture) connection at \(b.start)")
        }
    }

    @Test("some captures have connections, response times and adverts, so the comparison means something")
    func coverage() throws {
        var connections = 0
        var withTimes = 0
        var withAdverts = 0
        var withUpdates = 0
        for capture in Self.hciCaptures {
            let theirs = try Self.theirs(TestPaths.sharedCaptures.appendingPathComponent(capture).path)
            connections += theirs.count
            withTimes += theirs.filter { !$0.responseTimes.isEmpty }.count
            withAdverts += theirs.filter { $0.firstAdvertisement != nil }.count
            withUpdates += theirs.filter { $0.parameters.count > 1 }.count
        }
        #expect(connections >= 20)
        #expect(withTimes >= 10)
        #expect(withAdverts >= 5)
        #expect(withUpdates >= 3)
    }
}
