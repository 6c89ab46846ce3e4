import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

@testable import BLEInspectPlugins

/// Plugins cannot make bleinspect run without end or allocate without bound: a huge declared
/// count and deep nesting stop at the documented caps, with a note saying so.
@Suite struct AdversarialPluginTests {
    @Test func hugeCountAndDeepNestingStayWithinCaps() throws {
        let plugin = PluginPaths.fixtures.appendingPathComponent("adversarial.yaml").path
        let capture = TestPaths.projectCapture("chat-coc.btsnoop")
        let started = Date()
        let result = try PluginPaths.run("read", ["--plugin", plugin, "-T", "json", "-Y", "adversary", capture])
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        // A hang guard, not a speed test: without the caps this would not finish at all.
        #expect(seconds < 60)
        // One JSON object per line, one line per reassembled 1024-byte SDU.
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 6)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "valid JSON")
            let text = String(line)
            // Each SDU starts with message text read as a count in the billions.
            let count = text.firstRange(of: "\"adversary.count\":").map {
                text[$0.upperBound...].prefix { $0.isNumber }
            }
            #expect((count.flatMap { Int($0) } ?? 0) > 1_000_000_000, "the declared count is shown")
            #expect(text.contains("Limit reached"), "the cap is reported")
            let nodes = text.components(separatedBy: "\"adversary.").count - 1
            #expect(nodes <= PluginLimits.maximumNodesPerPDU + 8, "\(nodes) plugin fields in one frame")
        }
    }

    /// One array of zero-size elements stops at the element cap, with its own note.
    @Test func elementCap() throws {
        let text = """
            plugin: zeros
            l2cap:
              - psm: 0x0081
                fields:
                  - {name: count, type: uint32, endian: big}
                  - name: items
                    type: array
                    count: count
                    of: [{name: never, type: uint8, if: {field: count, equals: 0}}]
            """
        let dir = TemporaryDirectory()
        let path = dir.path("zeros.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try PluginPaths.run(
            "read",
            ["--plugin", path, "-V", "-Y", "zeros", "-c", "76", TestPaths.projectCapture("chat-coc.btsnoop")]
        )
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("array declares 2065852018 elements; plugins decode at most 1024 per array"))
        #expect(result.stdoutText.components(separatedBy: "Items ").count - 1 == PluginLimits.maximumArrayElements)
    }

    /// Types used many times multiply fields: the plugin is refused on loading, not at run time.
    @Test func fieldExplosionIsRejected() throws {
        var lines = [
            "plugin: boom", "characteristics:", "  - uuid: 5A1C0001-7E3D-4C8B-9F2A-1B0E5D4C3A20", "    fields: t0",
            "types:",
        ]
        for i in 0..<12 {
            lines.append("  t\(i): [{name: a, type: t\(i + 1)}, {name: b, type: t\(i + 1)}]")
        }
        lines.append("  t12: [{name: v, type: uint8}]")
        let result = PluginCompiler.compile(lines.joined(separator: "\n"), file: "boom.yaml")
        guard case .failure(let rejection) = result else {
            Issue.record("accepted")
            return
        }
        #expect(
            rejection.diagnostics.contains { $0.message.contains("more than \(PluginLimits.maximumFields) fields") }
        )
    }

    /// Types used four times over, sixteen levels deep (4^16 uses), and a switch whose cases all
    /// reuse one name (fields shared, so the field limit alone would not stop it): loading stops
    /// at the item limit instead of walking the tree.
    @Test func exponentialLayoutsStopEarly() {
        var wide = [
            "plugin: wide", "characteristics:", "  - uuid: 5A1C0001-7E3D-4C8B-9F2A-1B0E5D4C3A20", "    fields: t0",
            "types:",
        ]
        for i in 0..<15 {
            wide.append(
                "  t\(i): [{name: a, type: t\(i + 1)}, {name: b, type: t\(i + 1)}, {name: c, type: t\(i + 1)}, {name: d, type: t\(i + 1)}]"
            )
        }
        wide.append("  t15: [{name: v, type: uint8}]")
        var shared = [
            "plugin: shared", "characteristics:", "  - uuid: 5A1C0001-7E3D-4C8B-9F2A-1B0E5D4C3A20", "    fields: s0",
            "types:",
        ]
        for i in 0..<7 {
            shared.append("  s\(i):")
            shared.append("    - {name: op, type: uint8}")
            shared.append("    - switch: op")
            shared.append(
                "      cases: {1: [{name: x, type: s\(i + 1)}], 2: [{name: x, type: s\(i + 1)}], 3: [{name: x, type: s\(i + 1)}], 4: [{name: x, type: s\(i + 1)}], 5: [{name: x, type: s\(i + 1)}], 6: [{name: x, type: s\(i + 1)}], 7: [{name: x, type: s\(i + 1)}], 8: [{name: x, type: s\(i + 1)}]}"
            )
        }
        shared.append("  s7: [{name: v, type: uint8}]")
        for (name, lines) in [("wide", wide), ("shared", shared)] {
            let started = Date()
            let result = PluginCompiler.compile(lines.joined(separator: "\n"), file: "\(name).yaml")
            guard case .failure(let rejection) = result else {
                Issue.record("\(name) accepted")
                continue
            }
            #expect(
                rejection.diagnostics.contains {
                    $0.message.contains("more than \(PluginLimits.maximumFields) fields")
                        || $0.message.contains("more than \(PluginLimits.maximumLayoutItems) items")
                        || $0.message.contains("nesting deeper")
                },
                "\(name): \(rejection)"
            )
            // A hang guard: the full walk would be billions of steps.
            #expect(Date().timeIntervalSince(started) < 30, "\(name)")
        }
    }

    /// A YAML "billion laughs" is refused before it is composed.
    @Test func aliasBomb() {
        var lines = ["plugin: laughs", "types:", "  l0: &l0 [{name: a, type: uint8}]"]
        for i in 1..<10 {
            lines.append("  l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 9).joined(separator: ", ") + "]")
        }
        let result = PluginCompiler.compile(lines.joined(separator: "\n"), file: "laughs.yaml")
        guard case .failure(let rejection) = result else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.diagnostics.first?.line == 3)
    }

    /// Framing buffers are bounded: a stream that never delivers its delimiter is dropped at the
    /// message limit, with a note.
    @Test func framingBufferBound() {
        let framing = Framing(mode: .delimiter(Array("EOF".utf8)), chunk: nil, padding: nil, maximumMessage: 4096)
        let streams = PluginStreams()
        let key = PluginStreams.Key(
            connection: .init(controller: 0, handle: 0x40),
            cid: 0x40,
            direction: 1,
            psm: 0x81
        )
        var notes = 0
        for _ in 0..<100 {
            let r = streams.feed([UInt8](repeating: 0x41, count: 1000), key: key, framing: framing)
            #expect(r.buffered <= 4096)
            notes += r.notes.count
        }
        #expect(notes >= 20)
    }
}
