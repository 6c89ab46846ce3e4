import BLEInspectTestSupport
import Foundation
import Testing

/// `bleinspect-adv` run as a program on the project's own fixtures of real app patterns.
@Suite("bleinspect-adv")
struct CommandTests {
    static let fixtures: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/AdvertisingPatterns")
    }()

    static var binary: URL {
        TestPaths.bleinspectBinary.deletingLastPathComponent().appendingPathComponent("bleinspect-adv")
    }

    static func run(_ arguments: [String]) throws -> ProcessResult { try Run.program(binary, arguments) }

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    @Test("the seed chat app: 'name cut' at the startAdvertising line, whatever the UUID; the check fails")
    func seedChatApp() throws {
        let github = try Self.run(["--sources", Self.fixture("SeedChat"), "--format", "github"])
        #expect(github.status == 1, "\(github.stderr)")
        let line = github.stdoutText.split(separator: "\n").first { $0.contains("title=ios.name.truncated") }
        let found = try #require(line.map(String.init), "\(github.stdoutText)")
        #expect(found.hasPrefix("::error file=\(Self.fixture("SeedChat"))/ChatPeripheral.swift,line=11,col=27,"))
        #expect(found.contains("cut whatever `service.uuid` is: at most 22 of 25 bytes fit"))
        #expect(found.contains("128-bit: cut to 8 bytes, \"com.exam\""))
        let json = try Self.run(["--sources", Self.fixture("SeedChat"), "--format", "json"])
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any]
        )
        let results = try #require(document["results"] as? [[String: Any]])
        let foreground = try #require(results.first { $0["profile"] as? String == "ios-foreground" })
        let name = try #require(foreground["localName"] as? [String: Any])
        #expect(name["cut"] as? String == "always")
        #expect(name["maximumBytesOnAir"] as? Int == 22)
        let text = try Self.run(["--sources", Self.fixture("SeedChat")])
        #expect(
            text.stdoutText.contains("advertising data (ADV_IND AdvData): partial layout, if `service.uuid` is 16-bit")
        )
        #expect(!text.stdoutText.contains(", whole"))
    }

    @Test("no call found: said, exit 2 (nothing checked); with --fail-on warning, exit 1")
    func noCall() throws {
        let run = try Self.run(["--sources", Self.fixture("NoCall")])
        #expect(run.status == 2)
        #expect(run.stdoutText.contains("source.none"))
        #expect(run.stdoutText.contains("no startAdvertising call found in 1 Swift and 0 Objective-C file(s)"))
        #expect(run.stdoutText.hasSuffix("NOTHING CHECKED (--fail-on error)\n"))
        #expect(try Self.run(["--sources", Self.fixture("NoCall"), "--fail-on", "warning"]).status == 1)
        let json = try Self.run(["--sources", Self.fixture("NoCall"), "--format", "json"])
        #expect(json.status == 2)
        #expect(json.stdoutText.contains("\"nothingChecked\" : true"))
    }

    @Test("files in languages not read are named; the Swift call is still checked; --fail-on warning fails")
    func otherLanguages() throws {
        let run = try Self.run(["--sources", Self.fixture("OtherLanguages")])
        #expect(run.status == 0, "\(run.stdoutText)")
        #expect(run.stdoutText.contains("source.not-read"))
        #expect(run.stdoutText.contains("OtherLanguages/Advertiser.kt"))
        #expect(run.stdoutText.contains("\"HRM\" → \"HRM\" (0x09) in the advertising data, whole"))
        #expect(try Self.run(["--sources", Self.fixture("OtherLanguages"), "--fail-on", "warning"]).status == 1)
    }

    @Test("a source path that does not exist is an error naming it, exit 66")
    func missingPath() throws {
        let run = try Self.run(["--sources", Self.fixture("Missing")])
        #expect(run.status == 66)
        #expect(run.stderr.contains("Missing"))
    }
}
