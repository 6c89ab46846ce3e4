import BLEInspectCore
import BLEInspectFilter
import Testing

/// Two ATT handles in one frame (a Read By Type response's entries) and a second ATT layer, as a
/// tunnelled PDU would have: the multi-valued and layered cases of the language.
private func twoLayerTree() -> TestTree {
    var t = TestTree(bytes: [0x09, 0x04, 0x11, 0x00, 0x10, 0x00, 0x41, 0x62])
    t.add("frame.number", .unsigned(268))
    t.open("btatt", 0..<8)
    t.add("btatt.opcode", .unsigned(0x09), 0..<1)
    t.add("btatt.handle", .unsigned(0x11), 2..<4)
    t.add("btatt.handle", .unsigned(0x10), 4..<6)
    t.add("btatt.value", .bytes, 6..<8)
    t.close()
    t.open("btatt", 2..<6)
    t.add("btatt.handle", .unsigned(0x30), 2..<4)
    t.close()
    return t
}

@Suite("the rest of Wireshark's language")
struct LanguageTests {
    @Test("arithmetic: + - * / % with Wireshark's precedence, unary minus, { } grouping, & and bitwise_and")
    func arithmetic() {
        writeRequestTree().expect(
            [
                "btatt.handle + 1 == 0x2b", "btatt.handle - 1 == 41", "btatt.handle -1 == 41", "btatt.handle * 2 == 84",
                "btatt.handle / 4 == 10", "btatt.handle % 4 == 2", "btatt.handle + 2 * 3 == 48",
                "{btatt.handle + 2} * 3 == 132", "btatt.handle == 0x2b -1", "btatt.handle == {0x20 + 0x0a}",
                "-btatt.handle == -42", "-btatt.handle < 0", "btatt.handle - 0x2b < 0",
                "btatt.handle + 0xffff > 0xffff",
                "btatt.opcode & 0x0f + 1 == 0x10", "btatt.opcode bitwise_and 0x02", "btatt.opcode & 0x12 == 0x12",
                "btatt.handle + btatt.opcode == 0x3c", "btatt.value[0] & 0x01", "btatt.value[0:2] & 01:01 == 01:00",
                "-btatt.handle + 0x54 == 42", "abs(-btatt.handle) == 42", "abs(btatt.handle - 50) == 8",
            ],
            not: [
                "btatt.handle / 0 == 0", "btatt.handle % 0 == 0", "btatt.opcode & 0x0f + 1 == 2",
                "btatt.value[0] & 0x02",
            ]
        )
    }

    @Test("any and all before a comparison; `===` and `!==` on several occurrences")
    func quantifiers() {
        twoLayerTree().expect(
            [
                "any btatt.handle == 0x10", "all btatt.handle >= 0x10", "any btatt.handle != 0x10",
                "btatt.handle ~= 0x10", "all btatt.handle in {0x10..0x30}", "any btatt.handle === 0x30",
            ],
            not: [
                "all btatt.handle == 0x10", "btatt.handle === 0x10", "all btatt.handle > 0x10",
                "btatt.handle != 0x10", "all btatt.handle in {0x10, 0x11}",
            ]
        )
    }

    @Test("the layer operator: #N and #[ranges] count the field's protocol from the outside")
    func layers() {
        twoLayerTree().expect(
            [
                "btatt.handle#1 == 0x11", "btatt.handle#1 == 0x10", "btatt.handle#2 == 0x30", "btatt#2",
                "btatt.handle#[1-2] == 0x30", "btatt.handle#[2:] == 0x30", "count(btatt.handle#1) == 2",
                "btatt.opcode#1", "frame.number#1 == 268", "btatt#1[0] == 09", "btatt.handle #1 == 0x11",
            ],
            not: ["btatt.handle#2 == 0x11", "btatt.handle#1 == 0x30", "btatt#3", "btatt.opcode#2", "btatt.handle#0"]
        )
    }

    @Test("functions: len of any field, count, upper, lower, string, max, min, abs")
    func functions() {
        let t = advertisingTree()
        t.expect(
            [
                "upper(btcommon.eir_ad.entry.device_name) == \"HUE LAMP\"",
                "lower(btcommon.eir_ad.entry.device_name) contains \"hue\"",
                "string(frame.number) == \"213\"", "string(frame.number) matches \"[13579]$\"",
                "string(bthci_evt.rssi) == \"-87\"", "string(bthci_evt.bd_addr) == \"40:22:46:1d:d1:f5\"",
                "max(btcommon.eir_ad.entry.type) == 0xff", "min(btcommon.eir_ad.entry.type) == 0x01",
                "max(btcommon.eir_ad.entry.type, 0x10) == 0xff", "btcommon.eir_ad.entry.type == min(0x0a, 0x20)",
                "abs(bthci_evt.rssi) == 87", "len(bthci_evt.rssi) == 1", "len(bthci_evt.code) == 1",
                "len(bthci_evt.bd_addr) == 6", "count(btcommon.eir_ad.entry.type) + 1 == 4",
            ],
            not: ["upper(btcommon.eir_ad.entry.device_name) == \"Hue Lamp\"", "string(frame.number) == \"0xd5\""]
        )
        writeRequestTree().expect(["len(btatt.handle) == 2", "len(btatt.opcode.command) == 0", "len(btatt) == 5"])
    }

    @Test("slice lists join their ranges; a leading dot names a field")
    func slicesAndDots() {
        twoLayerTree().expect(
            [
                "btatt.value[0,1] == 41:62", "btatt[0:1,2-3,-1] == 09:11:00:62", "btatt.value[1,0] == \"bA\"",
                ".btatt.opcode == 9", "btatt.opcode == .btatt.opcode", ".btatt",
            ],
            not: ["btatt.value[0,5] == 41"]
        )
    }

    @Test("field references: false without a reference frame, the reference frame's values with one")
    func references() throws {
        let t = twoLayerTree()
        t.expect(["!(btatt.handle == ${btatt.handle})"], not: ["btatt.handle == ${btatt.handle}"])
        let filter = try FilterHarness.compile("btatt.handle == ${btatt.handle#2} - 0x20")
        #expect(filter.usesReferences)
        #expect(!filter.matches(t.tree, frameBytes: t.bytes))
        // The reference frame's btatt.handle#2 is 0x30: 0x30 - 0x20 is 0x10, which this frame has.
        let resolved = filter.settingReferences(t.tree, frameBytes: t.bytes)
        #expect(resolved.matches(t.tree, frameBytes: t.bytes))
        var other = TestTree()
        other.open("btatt")
        other.add("btatt.handle", .unsigned(0x11))
        other.close()
        #expect(!resolved.matches(other.tree, frameBytes: other.bytes))
        // Another copy of the filter (a worker thread's) takes the same values.
        #expect(
            try FilterHarness.compile(filter.text).settingReferences(of: resolved).matches(t.tree, frameBytes: t.bytes)
        )
    }

    @Test("times: dates for frame.time (ISO 8601 or Wireshark's legacy form), seconds for spans")
    func dates() throws {
        // 2020-05-17 22:26:09.232724 UTC.
        var t = advertisingTree()
        t.add("frame.time", .signed(1_589_754_369_232_724_000))
        t.add("frame.time_relative", .signed(1_500_000_000))
        t.expect(
            [
                "frame.time_epoch > 1589754369", "frame.time_epoch < 1589754369.5",
                "frame.time_epoch in {1589754369 .. 1589754370}", "frame.time == \"2020-05-17T22:26:09.232724Z\"",
                "frame.time == \"2020-05-18 00:26:09.232724 +02:00\"", "frame.time > \"May 17, 2020 22:26:09 UTC\"",
                "frame.time < \"2020-05-17T22:26:10+0000\"", "frame.time >= \"may 17, 2020 22:26:09.232724 UTC\"",
                "frame.time in {\"2020-05-17T00:00Z\" .. \"2020-05-18T00:00Z\"}", "frame.time_relative == 1.5",
                "frame.time_relative + 0.5 == 2", "-frame.time_relative < 0",
                "frame.time_relative > frame.time_epoch - 1589754369",
            ],
            not: ["frame.time_epoch > 1589754370", "frame.time > \"2020-05-17T22:26:09.232725Z\""]
        )
        for bad in [
            "frame.time > 1589754369", "frame.time_relative > \"1\"", "frame.time > \"May 17, 2020\"",
            "frame.time + 1 > frame.time", "frame.time_relative * 2 > 1", "frame.time == \"2020-13-01\"",
        ] {
            #expect(throws: FilterError.self, "\(bad)") { try FilterHarness.compile(bad) }
        }
    }
}
