import BLEInspectTestSupport
import Foundation
import Testing

@testable import BLEInspectPlugins

/// Each broken plugin in Fixtures/broken is rejected whole, with the file, line, column and the
/// reason; a rejected plugin named with --plugin stops bleinspect with exit 78.
@Suite struct BrokenPluginTests {
    /// (file, line, column, a part of the message).
    static let cases: [(String, Int, Int, String)] = [
        ("bad-yaml.yaml", 5, 1, "bad YAML: did not find expected ',' or ']'"),
        ("unknown-type.yaml", 5, 29, "unknown type 'uint7'; did you mean 'uint8'?"),
        ("bad-uuid.yaml", 3, 11, "bad UUID '5A1C0001-7E3D-4C8B-9F2A'"),
        ("field-overlap.yaml", 9, 33, "field overlap: bits 0xC of 'level' overlap 'state' (line 8)"),
        ("recursion.yaml", 10, 26, "unbounded recursion: type 'node' contains itself (node → leaf → node)"),
        (
            "duplicate-binding.yaml", 5, 11,
            "duplicate binding: bluetooth.uuid 5A1C0001-7E3D-4C8B-9F2A-1B0E5D4C3A20 is already bound at line 3"
        ),
        ("unknown-key.yaml", 5, 35, "unknown key 'lenght' in a field; did you mean 'length'?"),
        ("forward-reference.yaml", 5, 58, "count refers to 'n', which is not an earlier field"),
        ("conditional-reference.yaml", 7, 58, "count refers to 'n', which is conditional ('if:')"),
        ("reserved-namespace.yaml", 1, 9, "plugin 'btatt': the namespace is a built-in protocol's"),
        ("too-deep.yaml", 53, 25, "nesting deeper than 16 levels"),
        ("anchors.yaml", 3, 6, "YAML anchors and aliases (&name, *name) are not allowed"),
        ("option-not-for-type.yaml", 5, 42, "'scale:' does not apply to type utf8"),
        ("duplicate-field.yaml", 6, 16, "duplicate field name 'level' in this struct"),
        ("bad-framing.yaml", 5, 18, "a delimiter is 1 to 64 bytes"),
    ]

    static let reserved: Set<String> = ["btatt", "btl2cap", "frame"]

    @Test(arguments: cases.map(\.0))
    func rejectedWithPlace(_ name: String) throws {
        let (_, line, column, message) = try #require(Self.cases.first { $0.0 == name })
        let path = PluginPaths.broken(name)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let result = PluginCompiler.compile(text, file: path, reservedNamespaces: Self.reserved)
        guard case .failure(let rejection) = result else {
            Issue.record("\(name) was accepted")
            return
        }
        let first = try #require(rejection.diagnostics.first)
        #expect(first.line == line && first.column == column, "\(first)")
        #expect(first.message.contains(message), "\(first.message)")
        #expect(first.description.hasPrefix("\(path):\(line):\(column): error: "))
    }

    /// The code of a fixture's first diagnostic.
    static let codes: [(String, PluginDiagnostic.Code)] = [
        ("anchors.yaml", .yaml), ("too-deep.yaml", .limit), ("duplicate-field.yaml", .duplicate),
        ("option-not-for-type.yaml", .invalid), ("bad-framing.yaml", .invalid),
    ]

    @Test(arguments: codes.map(\.0))
    func rejectedWithCode(_ name: String) throws {
        let code = try #require(Self.codes.first { $0.0 == name }).1
        let path = PluginPaths.broken(name)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard case .failure(let rejection) = PluginCompiler.compile(text, file: path, reservedNamespaces: Self.reserved)
        else {
            Issue.record("\(name) was accepted")
            return
        }
        #expect(rejection.diagnostics.first?.code == code, "\(rejection)")
    }

    @Test func everyFixtureIsCovered() throws {
        let names = try FileManager.default.contentsOfDirectory(
            atPath: PluginPaths.fixtures.appendingPathComponent("broken").path
        )
        #expect(Set(names) == Set(Self.cases.map(\.0)))
        #expect(Self.cases.count >= 8)
    }

    /// Through the program: the same place and reason on standard error, exit 78, nothing decoded.
    @Test func commandLineStops() throws {
        let result = try PluginPaths.run(
            "read",
            ["--plugin", PluginPaths.broken("unknown-type.yaml"), TestPaths.projectCapture("sensor-gatt.btsnoop")]
        )
        #expect(result.status == 78)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("unknown-type.yaml:5:29: error: unknown type 'uint7'"))
        #expect(result.stderr.contains("rejected"))
        let listing = try PluginPaths.run(
            "plugins",
            ["--plugin", PluginPaths.fixtures.appendingPathComponent("broken").path]
        )
        #expect(listing.status == 78)
        for (name, line, column, _) in Self.cases where name != "reserved-namespace.yaml" {
            #expect(listing.stdoutText.contains("\(name):\(line):\(column): error:"), "\(name)")
        }
        #expect(listing.stdoutText.contains("reserved-namespace.yaml:1:9: error: plugin 'btatt'"))
    }

    /// A plugin with one mistake among good entries registers nothing: its good fields are
    /// unknown to the filter too.
    @Test func neverHalfLoaded() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("half.yaml")
        try """
        plugin: half
        characteristics:
          - uuid: 5A1C0001-7E3D-4C8B-9F2A-1B0E5D4C3A20
            fields: [{name: good, type: uint8}]
          - uuid: 5A1C0002-7E3D-4C8B-9F2A-1B0E5D4C3A20
            fields: [{name: bad, type: nonsense}]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let catalog = PluginLoader.load(PluginSearch(implicit: [dir.url.path]), reservedNamespaces: [])
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.rejected.count == 1)
        #expect(!catalog.explicitRejected, "found on the path, not named: reported and skipped")
        let fields = try PluginPaths.run("fields", ["--plugin", path])
        #expect(fields.status == 78)
        let env = try Run.program(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["BLEINSPECT_PLUGIN_PATH=\(dir.url.path)", TestPaths.bleinspectBinary.path, "fields", "half"]
        )
        #expect(env.status == 0, "a broken plugin on the path does not stop the command")
        #expect(env.stdoutText.isEmpty)
        #expect(env.stderr.contains("half.yaml:6:32: error: unknown type 'nonsense'"))
    }
}
