import Testing

@testable import BLEInspectCore

@Suite("the keys a run skips")
struct SkippedKeysTests {
    @Test("up to capacity keys are kept, the slot-0 key 0 among them, and the rest are ignored")
    func capacity() {
        var keys = SkippedKeys()
        let entries: [UInt32] = [
            0, 0x0003_00FF, 0x0004_0002, 0x0004_000D, 0x0005_0000, 0x000A_0001, 0x000A_00FF, 0x0010_0100,
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
}
