import BLEInspectSession
import Testing

@testable import BLEInspectCore

@Suite("the keys a run skips")
struct SkippedKeysTests {
    @Test("up to capacity keys are kept, the slot-0 key 0 among them, and the rest are ignored")
    func capacity() {
        var keys = SkippedKeys()
        let entries: [UInt32] = [
            0, 0x0003_00FF, 0x0004_0002, 0x0004_000D, 0x0005_0000, 0x000A_0001, 0x000A_00FF, 0x0010_0100,
            0x0001_0008, 0x0001_0009, 0x0001_000A, 0x0012_0003,
        ]
        #expect(entries.count == SkippedKeys.capacity)
        for entry in entries { keys.insert(entry) }
        keys.insert(0x0004_0002)
        #expect(keys.count == SkippedKeys.capacity)
        for entry in entries { #expect(keys.contains(entry), "\(entry)") }
        keys.insert(0x0011_0000)
        #expect(!keys.contains(0x0011_0000))
        #expect(!keys.contains(0x0004_0003))
    }

    @Test("a run that needs only ATT's fields skips legacy, directed and extended reports and the common stateless events")
    func attOnly() throws {
        let registry = try StandardModules.registry()
        var engine = DissectionEngine(registry: registry)
        engine.runsPostDissectors = false
        engine.skipStateless(unlessOwnedBy: ["att"])
        let frames: [(String, [UInt8])] = [
            ("legacy report", [0x3E, 0x0C, 0x02, 0x01, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x00, 0xC0]),
            (
                "extended report",
                [0x3E, 0x1B, 0x0D, 0x01, 0x13, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x01, 0x00, 0xFF, 0x7F, 0xC0]
                    + [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
            ),
            ("Number Of Completed Packets", [0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00]),
        ]
        var full = DissectionEngine(registry: registry)
        full.runsPostDissectors = false
        for (name, bytes) in frames {
            let frame = StatelessFrameTests.frame(.hciEvent, bytes)
            let count = { (tree: borrowing ProtocolTree) in tree.nodes.count { registry.owner(of: $0.field) != "core" } }
            let skipped = engine.dissect(frame, wantsInfo: false, count)
            let decoded = full.dissect(frame, wantsInfo: false, count)
            // The H4 and event headers only (type, direction, code, length, subevent).
            #expect(skipped <= 7 && skipped < decoded, "\(name): \(skipped) fields skipped-run, \(decoded) decoded")
        }
    }
}
