import BLEInspectTestSupport
import Foundation
import Testing

/// The three example profiles in profiles/ against the project's recordings of matching traffic
/// (captures/*.expected.json and chat-coc.messages.json hold what the recording script sent).
@Suite struct PluginExampleTests {
    static func close(_ text: String, _ expected: Double) -> Bool {
        guard let v = Double(text) else { return false }
        return abs(v - expected) < 1e-6
    }

    @Test func sensorMeasurementsAndControlPoint() throws {
        let expected = try #require(try PluginPaths.json("sensor-gatt.expected.json") as? [[String: Any]])
        let rows = try PluginPaths.fields(
            PluginPaths.profile("sensor.yaml"),
            "sensor-gatt.btsnoop",
            filter: "envsense",
            [
                "frame.number", "envsense.flags.battery_present", "envsense.flags.calibrated", "envsense.flags.alarm",
                "envsense.flags.sensor_id", "envsense.temperature", "envsense.humidity", "envsense.pressure",
                "envsense.battery", "envsense.opcode", "envsense.interval", "envsense.device_name", "envsense.low",
                "envsense.high", "envsense.offset", "envsense.calibrated_at",
            ]
        )
        #expect(rows.count == expected.count)
        for e in expected {
            let frame = try #require(e["frame"] as? Int)
            let row = try #require(rows.first { $0.first == String(frame) }, "frame \(frame) not decoded")
            switch e["kind"] as? String {
            case "read", "notify":
                #expect(row[1] == ((e["battery_present"] as? Bool) == true ? "1" : "0"))
                #expect(row[2] == ((e["calibrated"] as? Bool) == true ? "1" : "0"))
                #expect(row[3] == ((e["alarm"] as? Bool) == true ? "1" : "0"))
                #expect(row[4] == "\(e["sensor_id"] as? Int ?? -1)")
                #expect(Self.close(row[5], e["temperature_c"] as? Double ?? .nan), "frame \(frame): \(row[5])")
                #expect(Self.close(row[6], e["humidity_pct"] as? Double ?? .nan))
                #expect(Self.close(row[7], e["pressure_hpa"] as? Double ?? .nan))
                #expect(row[8] == ((e["battery"] as? Int).map(String.init) ?? ""), "battery only when flagged")
            case "descriptor":
                #expect(Self.close(row[14], e["offset_c"] as? Double ?? .nan))
                #expect(row[15] == "\(e["calibrated_at"] as? Int ?? -1)")
            case "control":
                #expect(row[9] == "\(e["opcode"] as? Int ?? -1)")
                #expect(row[10] == ((e["interval_ms"] as? Int).map(String.init) ?? ""))
                #expect(row[11] == (e["name"] as? String ?? ""))
                if let low = e["low_c"] as? Double, let high = e["high_c"] as? Double {
                    #expect(Self.close(row[12], low) && Self.close(row[13], high))
                } else {
                    #expect(row[12].isEmpty && row[13].isEmpty)
                }
            default:
                Issue.record("unexpected kind in sensor-gatt.expected.json")
            }
        }
        // The filter language sees the scaled values and the flags.
        let cold = try PluginPaths.fields(
            PluginPaths.profile("sensor.yaml"),
            "sensor-gatt.btsnoop",
            filter: "envsense.temperature < 0 && envsense.flags.battery_present == 0",
            ["frame.number"]
        )
        let coldFrames = expected.filter {
            ($0["temperature_c"] as? Double).map { $0 < 0 } == true && ($0["battery_present"] as? Bool) == false
        }.compactMap { $0["frame"] as? Int }
        #expect(!coldFrames.isEmpty)
        #expect(cold.map { $0[0] } == coldFrames.map(String.init))
        let reset = try PluginPaths.fields(
            PluginPaths.profile("sensor.yaml"),
            "sensor-gatt.btsnoop",
            filter: "envsense.opcode == \"Reset\"",
            ["frame.number", "envsense.opcode"]
        )
        #expect(reset.count == 1 && reset.first?[1] == "3")
    }

    @Test func sensorNamesInSummaries() throws {
        let result = try PluginPaths.run(
            "read",
            ["--plugin", PluginPaths.profile("sensor.yaml"), TestPaths.projectCapture("sensor-gatt.btsnoop")]
        )
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("Handle: 0x0011 (Environment Measurement: Calibration)"))
        #expect(result.stdoutText.contains("Environment Sensing (ACME)"))
        let tree = try PluginPaths.run(
            "read",
            [
                "--plugin", PluginPaths.profile("sensor.yaml"), "-V", "-c", "87",
                TestPaths.projectCapture("sensor-gatt.btsnoop"),
            ]
        )
        #expect(tree.stdoutText.contains("Temperature: -5.12 °C"))
        #expect(tree.stdoutText.contains("Humidity: 81.2 %"))
    }

    @Test func chatMessagesAcrossChunks() throws {
        let expected = try #require(try PluginPaths.json("chat-coc.messages.json") as? [[String: Any]])
        let rows = try PluginPaths.fields(
            PluginPaths.profile("chat.yaml"),
            "chat-coc.btsnoop",
            filter: "chat.body",
            ["frame.direction", "chat.body.from", "chat.body.seq", "chat.body.text", "chat.body"]
        )
        #expect(rows.count == expected.count)
        for (row, e) in zip(rows, expected) {
            let direction = e["direction"] as? String == "central->peripheral" ? "1" : "2"
            #expect(row[0] == direction)
            #expect(row[1] == e["from"] as? String)
            #expect(row[2] == "\(e["seq"] as? Int ?? -1)")
            #expect(row[3] == e["text"] as? String)
            #expect(row[4] == e["json"] as? String)
        }
        // The long message spans two 1024-byte chunks: the first chunk leaves it buffered.
        let long = try #require(expected.firstIndex { ($0["chunks"] as? Int) == 2 })
        #expect(long >= 0)
        let buffered = try PluginPaths.fields(
            PluginPaths.profile("chat.yaml"),
            "chat-coc.btsnoop",
            filter: "chat.buffered",
            ["chat.buffered"]
        )
        #expect(buffered.map { $0[0] } == ["1024"])
        let bob = try PluginPaths.fields(
            PluginPaths.profile("chat.yaml"),
            "chat-coc.btsnoop",
            filter: "chat.body.from == \"bob\"",
            ["chat.body.text"]
        )
        #expect(
            bob.map { $0[0] } == expected.filter { $0["from"] as? String == "bob" }.map { $0["text"] as? String ?? "" }
        )
    }

    @Test func vendorAdvertsAndScanResponse() throws {
        let document = try #require(try PluginPaths.json("vendor-adv.expected.json") as? [String: Any])
        let adverts = try #require(document["adverts"] as? [[String: Any]])
        let rows = try PluginPaths.fields(
            PluginPaths.profile("vendor-adv.yaml"),
            "vendor-adv.btsnoop",
            filter: "acmetag.counter",
            [
                "frame.number", "acmetag.model", "acmetag.battery", "acmetag.temperature", "acmetag.counter",
                "acmetag.status.moving", "acmetag.status.button_pressed", "acmetag.status.tx_level",
                "acmetag.history", "acmetag.prefix",
            ]
        )
        var expectedRows: [[String]] = []
        for advert in adverts {
            guard let d = advert["decoded"] as? [String: Any], let frames = advert["report_frames"] as? [Int] else {
                continue
            }
            let history = (d["history"] as? [Int] ?? []).map(String.init).joined(separator: ",")
            for frame in frames {
                expectedRows.append([
                    String(frame), "\(d["model"] as? Int ?? -1)", "\(d["battery"] as? Int ?? -1)",
                    "\(d["temperature"] as? Int ?? -1)", "\(d["counter"] as? Int ?? -1)",
                    (d["moving"] as? Bool) == true ? "1" : "0", (d["button_pressed"] as? Bool) == true ? "1" : "0",
                    "\(d["tx_level"] as? Int ?? -1)", history, "ac01",
                ])
            }
        }
        #expect(!expectedRows.isEmpty)
        #expect(rows == expectedRows)
        // The advert of company 0xFFFF without the AC 01 prefix is not claimed by the plugin:
        // the built-in decoding still shows its manufacturer data.
        for advert in adverts where (advert["vendor_payload"] as? Bool) == false {
            for frame in advert["report_frames"] as? [Int] ?? [] {
                let row = try PluginPaths.fields(
                    PluginPaths.profile("vendor-adv.yaml"),
                    "vendor-adv.btsnoop",
                    filter: "frame.number == \(frame)",
                    ["btcommon.eir_ad.entry.company_id", "acmetag", "btcommon.eir_ad.entry.data"]
                )
                #expect(row == [["0xffff", "", "424c45"]])
            }
        }
        // The scan response's service data.
        let identity = try PluginPaths.fields(
            PluginPaths.profile("vendor-adv.yaml"),
            "vendor-adv.btsnoop",
            filter: "acmetag.serial",
            [
                "acmetag.serial", "acmetag.firmware.major", "acmetag.firmware.minor", "acmetag.firmware.patch",
                "acmetag.hardware_revision",
            ]
        )
        let scan = try #require(document["scan_response"] as? [String: Any])
        #expect(!identity.isEmpty)
        for row in identity {
            #expect(UInt64(row[0].dropFirst(2), radix: 16) == (scan["serial"] as? Int).map(UInt64.init))
            #expect(row[1] == "\(scan["firmware_major"] as? Int ?? -1)")
            #expect(row[2] == "\(scan["firmware_minor"] as? Int ?? -1)")
            #expect(row[3] == "\(scan["firmware_patch"] as? Int ?? -1)")
            #expect(row[4] == "\(scan["hardware_revision"] as? Int ?? -1)")
        }
    }
}
