import BLEInspectCore
import BLEInspectSession
import BLEInspectTestSupport
import Foundation
import Testing

@testable import BLEInspectPlugins

/// Where plugins come from, which one wins a clash, and how plugins meet the built-in decoders.
@Suite struct PluginLoadingTests {
    static func write(_ text: String, _ name: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func channelPlugin(_ namespace: String, psm: String = "0x0081") -> String {
        """
        plugin: \(namespace)
        l2cap:
          - psm: \(psm)
            fields: [{name: first, type: uint8}]
        """
    }

    /// --plugin first, then $BLEINSPECT_PLUGIN_PATH in order, then the user directory; in a
    /// directory, files in name order. The first plugin to bind a key keeps it.
    @Test func searchOrderAndClashes() throws {
        let explicit = TemporaryDirectory()
        let pathA = TemporaryDirectory()
        let pathB = TemporaryDirectory()
        let config = TemporaryDirectory()
        let cmd = try Self.write(Self.channelPlugin("one"), "one.yaml", in: explicit)
        _ = try Self.write(Self.channelPlugin("two"), "two.yaml", in: pathA)  // same PSM: clashes with one
        _ = try Self.write(Self.channelPlugin("three", psm: "0x0083"), "b.yaml", in: pathA)
        _ = try Self.write(Self.channelPlugin("four", psm: "0x0085"), "a.yaml", in: pathA)
        _ = try Self.write(Self.channelPlugin("five", psm: "0x0087"), "five.yaml", in: pathB)
        try FileManager.default.createDirectory(
            atPath: config.path("bleinspect/plugins"),
            withIntermediateDirectories: true
        )
        _ = try Self.write(Self.channelPlugin("three", psm: "0x0089"), "bleinspect/plugins/three.yaml", in: config)
        let search = PluginSearch.standard(
            explicit: [cmd],
            environment: [
                "BLEINSPECT_PLUGIN_PATH": "\(pathA.url.path):\(pathB.url.path)", "XDG_CONFIG_HOME": config.url.path,
            ]
        )
        #expect(search.implicit == [pathA.url.path, pathB.url.path, config.path("bleinspect/plugins")])
        let catalog = PluginLoader.load(search, reservedNamespaces: [])
        #expect(catalog.plugins.map(\.namespace) == ["one", "four", "three", "five"])
        let reasons = catalog.rejected.flatMap(\.diagnostics).map(\.message)
        #expect(reasons.count == 2)
        #expect(reasons.contains { $0.contains("btl2cap.psm 0x0081 is already bound by plugin 'one'") })
        #expect(reasons.contains { $0.contains("plugin 'three' is already loaded from \(pathA.path("b.yaml"))") })
        #expect(!catalog.explicitRejected)
        // Without the defaults only --plugin counts.
        let only = PluginSearch.standard(explicit: [cmd], useDefaults: false, environment: ["HOME": config.url.path])
        #expect(only.implicit.isEmpty)
    }

    /// The whole program reads $BLEINSPECT_PLUGIN_PATH and the user directory.
    @Test func environmentThroughTheProgram() throws {
        let home = TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: home.path(".config/bleinspect/plugins"),
            withIntermediateDirectories: true
        )
        try FileManager.default.copyItem(
            atPath: PluginPaths.profile("chat.yaml"),
            toPath: home.path(".config/bleinspect/plugins/chat.yaml")
        )
        let pathDir = TemporaryDirectory()
        try FileManager.default.copyItem(
            atPath: PluginPaths.profile("sensor.yaml"),
            toPath: pathDir.path("sensor.yaml")
        )
        let result = try Run.program(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "-u", "XDG_CONFIG_HOME", "HOME=\(home.url.path)", "BLEINSPECT_PLUGIN_PATH=\(pathDir.url.path)",
                TestPaths.bleinspectBinary.path, "plugins",
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let heads = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map {
            $0.split(separator: "\t").first.map(String.init) ?? ""
        }
        #expect(heads == ["envsense", "chat"])
        let fields = try Run.program(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["-u", "XDG_CONFIG_HOME", "HOME=\(home.url.path)", TestPaths.bleinspectBinary.path, "fields", "chat.body"]
        )
        #expect(fields.stdoutText.contains("chat.body.from\tstring\tFrom"))
    }

    /// A plugin bound to a built-in key (Apple's company id) takes the data with its prefix; the
    /// built-in decoder still gets the rest. The registry lists the override.
    @Test func overrideKeepsBuiltInForUnclaimedData() throws {
        let text = """
            plugin: applex
            advertising:
              - manufacturer: 0x004C
                prefix: AA 01
                name: Not iBeacon
                fields: [{name: value, type: uint16}]
            """
        let plugin = try PluginCompiler.compile(text, file: "applex.yaml").get()
        let registry = try Toolkit().registry(plugins: PluginCatalog(plugins: [plugin]))
        let override = try #require(registry.overrides.first)
        #expect(override.table == StandardTables.companyID.id && override.key == DissectorKey(0x004C))
        #expect(override.plugin == "applex" && override.builtIn == "advertising")
        func report(_ manufacturerData: String) -> CapturedFrame {
            let ad = Hex.bytes("FF 4C 00 " + manufacturerData)
            let data = [UInt8(ad.count)] + ad
            let params =
                [0x02, 0x01, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0xC6, UInt8(data.count)] + data + [0xC8]
            let hex = (["3E", String(format: "%02X", params.count)] + params.map { String(format: "%02X", $0) }).joined(
                separator: " "
            )
            return Dissect.hci(.hciEvent, hex)
        }
        let beacon = report("02 15 E2 C5 6D B5 DF FB 48 D2 B0 60 D0 F5 A7 10 96 E0 00 01 00 02 C5")
        let mine = report("AA 01 34 12")
        let snaps = Dissect.frames([beacon, mine], registry: registry)
        #expect(snaps[0].uints("bluetooth.apple.ibeacon.major") == [1], "the built-in iBeacon decoder still runs")
        // A run that needs only the built-in fields (`-Y bluetooth.apple…`) skips stateless
        // bindings owned by no module it needs: the plugin's binding, which runs the Apple
        // decoder, must not be one of them.
        let major = try #require(registry.field(named: "bluetooth.apple.ibeacon.major"))
        var engine = DissectionEngine(registry: registry)
        engine.skipStateless(unlessOwnedBy: [registry.owner(of: major)])
        let skipped = engine.dissect(beacon, wantsInfo: false) {
            FrameSnapshot(frame: beacon, tree: $0, registry: registry)
        }
        #expect(skipped.uints("bluetooth.apple.ibeacon.major") == [1])
        #expect(!snaps[0].has("applex"))
        #expect(snaps[1].uints("applex.value") == [0x1234])
        #expect(snaps[1].hex("applex.prefix") == ["aa01"])
        #expect(!snaps[1].has("bluetooth.apple.ibeacon.major"))
    }

    /// A plugin's name for a UUID that a module also names replaces the module's, as its bindings
    /// do, instead of failing the registry.
    @Test func pluginNameReplacesModuleName() throws {
        enum NamingModule: DissectorModule {
            static let name = "naming"
            static func register(_ registry: inout RegistryBuilder) {
                registry.name(BluetoothUUID(uuid16: 0xFFF0), "Module Name")
            }
        }
        let plugin = try PluginCompiler.compile(
            "plugin: renamer\nservices:\n  - {uuid: 0xFFF0, name: Plugin Name}",
            file: "renamer.yaml"
        ).get()
        let registry = try RegistryBuilder.build(
            modules: StandardModules.builtIn + [NamingModule.self],
            plugins: [PluginSet([plugin])]
        )
        #expect(registry.name(of: BluetoothUUID(uuid16: 0xFFF0)) == "Plugin Name")
    }

    /// `*` and `&` are anchors and aliases only where a node starts.
    @Test func anchorScan() {
        #expect(YAMLReader.firstAnchorOrAlias("help: multiply by *factor & add") == nil)
        #expect(YAMLReader.firstAnchorOrAlias("unit: m*s\nname: \"*x\"") == nil)
        #expect(YAMLReader.firstAnchorOrAlias("a: *b")?.column == 4)
        #expect(YAMLReader.firstAnchorOrAlias("a: [x, *b]")?.column == 8)
        #expect(YAMLReader.firstAnchorOrAlias("x: 1\n- &a y")?.line == 2)
    }

    /// Replacing a built-in decoder is reported, unless the plugin says it means to.
    @Test func overrideNotice() throws {
        let dir = TemporaryDirectory()
        let text = """
            plugin: battery
            characteristics:
              - uuid: 0x2A19
                name: Battery Level
                fields: [{name: level, type: uint8, unit: "%"}]
            """
        let path = try Self.write(text, "battery.yaml", in: dir)
        let noisy = try PluginPaths.run(
            "read",
            ["--plugin", path, "-c", "1", TestPaths.projectCapture("gatt-discovery.btsnoop")]
        )
        #expect(noisy.status == 0)
        #expect(
            noisy.stderr.contains(
                "battery.yaml:3:11: note: plugin 'battery' replaces the built-in decoder of bluetooth.uuid 0x2A19"
            )
        )
        let quiet = try Self.write(text + "\n    override: true\n", "quiet.yaml", in: dir)
        let silent = try PluginPaths.run(
            "read",
            ["--plugin", quiet, "-c", "1", TestPaths.projectCapture("gatt-discovery.btsnoop")]
        )
        #expect(silent.status == 0)
        #expect(silent.stderr.isEmpty, "\(silent.stderr)")
        // The plugin's decoder is the one used.
        let levels = try PluginPaths.fields(quiet, "gatt-discovery.btsnoop", filter: "battery.level", ["battery.level"])
        #expect(!levels.isEmpty)
        #expect(levels.allSatisfy { Int($0[0]).map { (0...100).contains($0) } == true })
    }

    /// Plugin fields are listed by `fields`, with their types and units.
    @Test func fieldsListsPluginFields() throws {
        let result = try PluginPaths.run("fields", ["--plugin", PluginPaths.profile("sensor.yaml"), "envsense"])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("envsense.temperature\tdouble\tTemperature") })
        #expect(lines.contains { $0.hasPrefix("envsense.flags.alarm\tboolean\tAlarm") })
        #expect(lines.first?.hasPrefix("envsense\tprotocol") == true)
    }
}
