import BLEInspectTestSupport
import Foundation
import Testing

/// `bleinspect conns`, run as users run it, against what scripts/record_captures.py recorded and
/// re-derived on its own (the `.stalls.json` and `.sdus.json` next to the recordings).
@Suite("conns view")
struct ConnsViewTests {
    /// The connections `conns --json` prints for `arguments`.
    static func connections(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try Run.bleinspect(["conns", "--json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let top = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(top["schema"] as? String == "bleinspect.conns/1")
        return try #require(top["connections"] as? [[String: Any]])
    }

    static func oracle(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture(name))))
    }

    static func int(_ v: Any?) -> Int? { (v as? NSNumber)?.intValue }

    /// The sender side of a channel for a recording's direction: the captures are the central's
    /// host, so central->peripheral is what the local host sent.
    static func side(_ direction: String, localRole: String?) -> String {
        let centralSends = direction == "central->peripheral"
        return (localRole == "central") == centralSends ? "sent" : "received"
    }

    @Test("the CoC stalls measured from frame timestamps are the ones the recording made")
    func stallsMatchTheRecording() throws {
        let connections = try Self.connections([TestPaths.projectCapture("le-coc-stall.btsnoop")])
        #expect(connections.count == 1)
        let connection = try #require(connections.first)
        let role = connection["local_role"] as? String
        #expect(role == "central")
        let channels = try #require(connection["channels"] as? [[String: Any]])
        let oracle = try #require(try Self.oracle("le-coc-stall.stalls.json") as? [String: Any])
        let expected = try #require(oracle["stalls"] as? [[String: Any]])
        #expect(expected.count == 2)

        var seen: [String: [[String: Any]]] = [:]
        for stall in expected {
            let psm = try #require(Self.int(stall["channel_psm"]))
            let cid = try #require(Self.int(stall["channel_cid"]))
            let direction = try #require(stall["direction"] as? String)
            let sideName = Self.side(direction, localRole: role)
            // The channel with that PSM whose K-frames in that direction go to that CID.
            let channel = try #require(
                channels.first {
                    Self.int($0["psm"]) == psm
                        && Self.int($0[sideName == "sent" ? "peer_cid" : "local_cid"]) == cid
                }
            )
            let side = try #require(channel[sideName] as? [String: Any])
            let stalls = try #require(side["stalls"] as? [[String: Any]])
            seen[sideName, default: stalls] = stalls
            let found = stalls.first { Self.int($0["start_frame"]) == Self.int(stall["start_frame"]) }
            let ours = try #require(found, "no stall starting in frame \(stall["start_frame"] ?? "?")")
            for key in ["end_frame", "start_time_us", "end_time_us", "duration_us", "sdu", "credits_granted"] {
                #expect(Self.int(ours[key]) == Self.int(stall[key]), "\(key)")
            }
        }
        // Nothing else was a stall: the same number in each direction.
        #expect(seen["sent"]?.count == expected.count)
        for channel in channels {
            let received = try #require(channel["received"] as? [String: Any])
            #expect((received["stalls"] as? [Any])?.isEmpty == true)
        }
        let total = try #require(seen["sent"]).compactMap { Self.int($0["duration_us"]) }.reduce(0, +)
        let sent = try #require(channels.first?["sent"] as? [String: Any])
        #expect(Self.int(sent["stalled_us"]) == total)
    }

    @Test(
        "SDUs and bytes in each direction are the ones the recording script sent",
        arguments: [
            ("le-coc.btsnoop", "le-coc.sdus.json", nil as String?),
            ("le-coc-stall.btsnoop", "le-coc-stall.stalls.json", "sdus"),
        ]
    )
    func sduCounts(capture: String, oracleName: String, key: String?) throws {
        let top = try Self.oracle(oracleName)
        let value: Any? = if let key { (top as? [String: Any])?[key] } else { top }
        let list = try #require(value as? [[String: Any]])
        let connection = try #require(try Self.connections([TestPaths.projectCapture(capture)]).first)
        let channels = try #require(connection["channels"] as? [[String: Any]])
        #expect(channels.count == 1)
        let channel = try #require(channels.first)
        #expect(Self.int(channel["psm"]) == 0x85)
        for name in ["sent", "received"] {
            let sdus = list.filter {
                Self.side($0["direction"] as? String ?? "", localRole: connection["local_role"] as? String) == name
            }
            let bytes = sdus.map { (($0["hex"] as? String)?.count ?? 0) / 2 }.reduce(0, +)
            let side = try #require(channel[name] as? [String: Any])
            #expect(Self.int(side["sdus"]) == sdus.count, "\(name)")
            #expect(Self.int(side["sdu_bytes"]) == bytes, "\(name)")
        }
    }

    @Test(
        "the pairing method follows from the IO capabilities the recordings exchanged",
        arguments: [
            ("smp-pairing.btsnoop", true),
            ("smp-legacy-pairing.btsnoop", false),
        ]
    )
    func pairing(capture: String, secureConnections: Bool) throws {
        let connection = try #require(try Self.connections([TestPaths.projectCapture(capture)]).first)
        let pairing = try #require(connection["pairing"] as? [String: Any])
        // Both recording devices are NoInputNoOutput (scripts/record_captures.py), which gives
        // Just Works in both pairing kinds (Core Vol 3 Part H 2.3.5.1, Table 2.8).
        #expect(pairing["initiator_io"] as? String == "NoInputNoOutput")
        #expect(pairing["responder_io"] as? String == "NoInputNoOutput")
        #expect(pairing["method"] as? String == "Just Works")
        #expect(pairing["secure_connections"] as? Bool == secureConnections)
        #expect(pairing["initiator"] as? String == "local")
        #expect(pairing["failed"] is NSNull)
        let encrypted = try #require(pairing["encrypted"] as? [String: Any])
        let encryption = try #require(connection["encryption"] as? [[String: Any]])
        #expect(Self.int(encrypted["frame"]) == Self.int(encryption.first?["frame"]))
        #expect(Self.int(encryption.first?["enabled"]) == 1)
    }

    @Test("a reconnection is a second block; MTU and ATT counts per connection")
    func reconnection() throws {
        let connections = try Self.connections([TestPaths.projectCapture("gatt-database.btsnoop")])
        #expect(connections.count == 2)
        #expect(connections.map { Self.int($0["handle"]) } == [1, 1])
        #expect(connections.map { $0["ended_by"] as? String } == ["disconnection", "disconnection"])
        let first = try #require(connections.first)
        let mtu = try #require(first["mtu"] as? [[String: Any]])
        #expect(mtu.map { Self.int($0["mtu"]) } == [247])
        let att = try #require(first["att"] as? [String: Any])
        let times = try #require(att["response_time_us"] as? [String: Any])
        let sent = try #require(att["sent"] as? [String: Any])
        let received = try #require(att["received"] as? [String: Any])
        // Every request the central sent was answered by a response or an error.
        #expect(
            Self.int(times["count"])
                == Self.int(sent["requests"]).map { $0 }
        )
        #expect(
            (Self.int(received["responses"]) ?? 0) + (Self.int(received["errors"]) ?? 0) == Self.int(sent["requests"])
        )
    }

    @Test("-Y picks the frames: a filter no frame matches leaves no connection")
    func filterApplies() throws {
        let path = TestPaths.projectCapture("gatt-database.btsnoop")
        #expect(try Self.connections(["-Y", "device.addr == 11:22:33:44:55:66", path]).isEmpty)
        #expect(try Self.connections(["-Y", "device.addr == c0:de:c0:de:00:02", path]).count == 2)
        let text = try Run.bleinspect(["conns", "-Y", "bthci_acl", path])
        #expect(text.status == 0)
        // Without the events, the connections are known only from their data: started before
        // what the filter let through, and still open at its end.
        #expect(text.stdoutText.contains("start:       before the capture"))
        #expect(text.stdoutText.contains("still open when the capture ends"))
    }

    @Test("the text block names the stall, the reason and the role")
    func textBlock() throws {
        let result = try Run.bleinspect(["conns", TestPaths.projectCapture("le-coc-stall.btsnoop")])
        #expect(result.status == 0)
        let text = result.stdoutText
        #expect(text.contains("role:        local host central, peer peripheral"))
        #expect(text.contains("disconnected: 0x13 Remote User Terminated Connection"))
        #expect(text.contains("frames 59→72: 1.498900 s with SDU 2 unfinished, until +4 credits"))
        #expect(text.contains("frames 117→130: 748.900 ms with SDU 5 unfinished, until +4 credits"))
        #expect(text.contains("local host stalled at 0 credits: 2 times, 2.247800 s in all"))
    }

    @Test("a damaged capture: what came before is reported, and the exit status says so")
    func damagedInput() throws {
        let bytes = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc-stall.btsnoop")))
        )
        let dir = TemporaryDirectory()
        // Cut in the middle of a record after the connection complete.
        let path = dir.write(Array(bytes.prefix(bytes.count - 700)), to: "cut.btsnoop")
        let result = try Run.bleinspect(["conns", "--json", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("cut.btsnoop"))
        let top = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let connections = try #require(top["connections"] as? [[String: Any]])
        #expect(connections.first?["ended_by"] as? String == "capture_end")
    }
}
