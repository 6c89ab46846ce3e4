import BLEInspectTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `bleinspect adv-budget` run as a program: exit statuses, formats, and errors on standard error.
@Suite("bleinspect adv-budget")
struct AdvBudgetCLITests {
    /// A plan whose iOS foreground check passes and whose background check has warnings only
    /// (§2.6), and one whose name is cut in the foreground (error, §2.5): 2 + 29 > 28.
    static let passing = "adverts:\n  - id: device\n    local_name: Device\n    service_uuids: [180A]\n"
    static let failing = "adverts:\n  - id: long\n    local_name: com.example.corebluetooth.app\n"

    @Test("exit 0 without findings at --fail-on, 1 with; --fail-on warning fails on warnings")
    func failOnStatuses() throws {
        let dir = TemporaryDirectory()
        let ok = dir.write(Array(Self.passing.utf8), to: "ok.yaml")
        let bad = dir.write(Array(Self.failing.utf8), to: "long.yaml")
        let passed = try Run.bleinspect(["adv-budget", ok, "--platform", "ios"])
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(passed.stdoutText.contains("passed (--fail-on error)"))
        #expect(try Run.bleinspect(["adv-budget", ok, "--platform", "ios", "--fail-on", "warning"]).status == 1)
        #expect(try Run.bleinspect(["adv-budget", ok, "--platform", "ios", "--fail-on", "error"]).status == 0)
        let failed = try Run.bleinspect(["adv-budget", ok, bad, "--platform", "ios"])
        #expect(failed.status == 1)
        #expect(failed.stdoutText.contains("error   ios.name.truncated"))
        // --platform repeated and comma-separated.
        let both = try Run.bleinspect(["adv-budget", ok, "--platform", "android", "--platform", "legacy,extended"])
        #expect(both.status == 0)
        #expect(both.stdoutText.contains("4 check(s)") == false)
        #expect(both.stdoutText.contains("3 check(s)"))
    }

    @Test("usage errors exit 64; an invalid plan 65; an unreadable plan 66")
    func errorStatuses() throws {
        let dir = TemporaryDirectory()
        let ok = dir.write(Array(Self.passing.utf8), to: "ok.yaml")
        let invalid = dir.write(Array("adverts:\n  - id: a\n    tx_power: loud\n".utf8), to: "invalid.yaml")
        #expect(try Run.bleinspect(["adv-budget"]).status == 64)
        #expect(try Run.bleinspect(["adv-budget", ok, "--platform", "windows"]).status == 64)
        #expect(try Run.bleinspect(["adv-budget", ok, "--format", "xml"]).status == 64)
        #expect(try Run.bleinspect(["adv-budget", ok, "--fail-on", "info"]).status == 64)
        #expect(
            try Run.bleinspect(["adv-budget", ok, "--platform", "extended", "--controller-max", "30"]).status == 64
        )

        let bad = try Run.bleinspect(["adv-budget", ok, invalid])
        #expect(bad.status == 65)
        #expect(bad.stdout.isEmpty)
        #expect(
            bad.stderr.contains(
                "invalid.yaml:3:15: adverts[0].tx_power: expected an integer in -128...127, got \"loud\""
            )
        )

        let missing = try Run.bleinspect(["adv-budget", dir.path("none.yaml")])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("none.yaml: cannot read the plan: no such file"))
    }

    @Test("json parses, junit is well-formed XML, github gives annotations")
    func formats() throws {
        let dir = TemporaryDirectory()
        let plan = dir.write(Array((Self.passing + Self.failing.dropFirst("adverts:\n".count)).utf8), to: "p.yaml")
        let json = try Run.bleinspect(["adv-budget", plan, "--platform", "ios", "--format", "json"])
        #expect(json.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(document["schema"] as? String == "bleinspect.adv-budget/2")
        #expect((document["results"] as? [Any])?.count == 4)

        let junit = try Run.bleinspect(["adv-budget", plan, "--platform", "ios", "--format", "junit"])
        #expect(junit.status == 1)
        let parser = XMLParser(data: junit.stdout)
        #expect(parser.parse())
        #expect(junit.stdoutText.components(separatedBy: "<testcase ").count - 1 == 4)
        #expect(junit.stdoutText.components(separatedBy: "<failure ").count - 1 == 1)

        let github = try Run.bleinspect(["adv-budget", plan, "--platform", "ios", "--format", "github"])
        #expect(github.status == 1)
        // The plan entry of "long" is at line 5, column 5.
        #expect(
            github.stdoutText.contains("::error file=\(plan),line=5,col=5,title=ios.name.truncated::")
        )
    }

    @Test("--swift: the sample app's dictionaries, with file and line, and an unresolvable name flagged")
    func swiftSources() throws {
        let app = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures/AdvertisingSampleApp").path
        let result = try Run.bleinspect(["adv-budget", "--swift", app, "--format", "github"])
        // ThermometerPeripheral.swift:30 advertises "com.example.corebluetooth" with the 128-bit
        // UUID: 3 (Flags) + 18 (UUID list) leave 10 bytes, so 8 name bytes go as 0x08 (§2.5).
        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        let truncated = lines.filter {
            $0.hasPrefix("::error ") && $0.contains("title=ios.name.truncated")
                && $0.contains("file=\(app)/ThermometerPeripheral.swift,line=30,col=27")
        }
        #expect(truncated.count == 1)
        #expect(truncated.first?.contains("\"com.exam\" (0x08)") == true)
        // PairingAdvertiser.swift:20 builds its name by interpolation: a warning names it.
        let unresolved = lines.filter {
            $0.hasPrefix("::warning ") && $0.contains("title=source.unresolved")
                && $0.contains("file=\(app)/PairingAdvertiser.swift,line=20")
        }
        #expect(!unresolved.isEmpty)
        #expect(unresolved.allSatisfy { $0.contains("`PairingConstants.advertisedName`") })
        // Its manufacturer data key is dropped by iOS: an error at the same call.
        #expect(
            lines.contains { $0.contains("title=ios.key.dropped") && $0.contains("PairingAdvertiser.swift,line=20") }
        )
        // Nothing given and a missing source are usage and read errors.
        #expect(try Run.bleinspect(["adv-budget"]).status == 64)
        let missing = try Run.bleinspect(["adv-budget", "--swift", app + "/NoSuchFile.swift"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("NoSuchFile.swift"))
    }

    @Test("--capture: received adverts checked against the legacy limits; a bad AD length fails the run")
    func captures() throws {
        // captures/README.md, adv-scan.btsnoop: 4 ADV_IND reports of 31 bytes and 4 SCAN_RSP of
        // 22 bytes from C0:DE:C0:DE:00:02. Both fit 31 + 31 (Core Vol 3 Part C 11): two checks.
        let scan = try Run.bleinspect(["adv-budget", "--capture", TestPaths.projectCapture("adv-scan.btsnoop")])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdoutText.contains("2 check(s): 0 error(s)"))
        #expect(scan.stdoutText.contains("(ADV_IND), seen 4 times"))
        #expect(scan.stdoutText.contains("31 of 31 bytes, 0 left"))

        // A host sets advertising data whose second AD structure says 9 bytes follow when 2 do:
        // HCI LE Set Advertising Data (0x2008): Data_Length 7, then 31 bytes of data.
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x09, 0x09, 0x41, 0x42] + [UInt8](repeating: 0, count: 24)
        let command: [UInt8] = [0x01, 0x08, 0x20, 32, 7] + data
        let enable: [UInt8] = [0x01, 0x0A, 0x20, 1, 1]
        var file = CaptureBytes.btsnoopHeader(datalink: 1002)
        file += CaptureBytes.btsnoopRecord(command, flags: 2, unixMicros: 1_735_689_600_000_000)
        file += CaptureBytes.btsnoopRecord(enable, flags: 2, unixMicros: 1_735_689_600_000_100)
        let dir = TemporaryDirectory()
        let path = dir.write(file, to: "bad-ad.btsnoop")
        let bad = try Run.bleinspect(["adv-budget", "--capture", path, "--format", "json"])
        #expect(bad.status == 1, "\(bad.stderr)")
        #expect(bad.stdoutText.contains("ad.length.overrun"))
        // A capture that cannot be opened is an unreadable input.
        #expect(try Run.bleinspect(["adv-budget", "--capture", dir.path("missing.btsnoop")]).status == 66)
    }

    @Test(
        "--capture on an air sniffer's capture: its link-layer frames are counted and named as not read, never a pass",
        .enabled(if: TestPaths.sharedCapturesAvailable && Run.tshark != nil)
    )
    func snifferCapture() throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent("bsniffhub_phy-changed.pcap").path
        let run = try Run.bleinspect(["adv-budget", "--capture", path, "--format", "json"])
        #expect(run.status == 2, "\(run.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(document["nothingChecked"] as? Bool == true)
        let notes = document["notes"] as? [[String: Any]] ?? []
        let note = try #require(notes.first { $0["rule"] as? String == "capture.link-layer" })
        // The oracle: tshark's count of the capture's link-layer frames.
        let frames = try Run.tsharkFilter(path, "btle").count
        #expect(frames > 0)
        #expect((note["message"] as? String)?.hasPrefix("\(frames) link-layer frame(s) of an air sniffer") == true)
    }
}
