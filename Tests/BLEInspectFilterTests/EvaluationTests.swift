import BLEInspectCore
import BLEInspectFilter
import Testing

/// An ATT Write Request (handle 0x002a, value 01 00) inside L2CAP on the LE ATT channel.
func writeRequestTree() -> TestTree {
    var t = TestTree(bytes: [0x05, 0x00, 0x04, 0x00, 0x12, 0x2A, 0x00, 0x01, 0x00])
    t.open("btl2cap", 0..<9)
    t.add("btl2cap.length", .unsigned(5), 0..<2)
    t.add("btl2cap.cid", .unsigned(4), 2..<4)
    t.close()
    t.open("btatt", 4..<9)
    t.add("btatt.opcode", .unsigned(0x12), 4..<5)
    t.add("btatt.opcode.command", .boolean(false), 4..<5)
    t.add("btatt.handle", .unsigned(0x2A), 5..<7)
    t.add("btatt.value", .bytes, 7..<9)
    t.close()
    return t
}

/// An advertising report: three AD structures, a name, UUIDs of each width, an address, RSSI.
func advertisingTree() -> TestTree {
    var t = TestTree()
    t.add("frame.number", .unsigned(213))
    t.add("frame.time_epoch", .signed(1_589_754_369_232_724_000))
    t.add("frame.kind", text: "HCI Event")
    t.open("bthci_evt")
    t.add("bthci_evt.code", .unsigned(0x3E))
    t.add("bthci_evt.le_meta_subevent", .unsigned(0x02))
    t.add("bthci_evt.bd_addr", .address(BDAddr(rawValue: 0x4022_461D_D1F5)))
    t.add("btcommon.eir_ad.entry.type", .unsigned(0x01))
    t.add("btcommon.eir_ad.entry.type", .unsigned(0x0A))
    t.add("btcommon.eir_ad.entry.type", .unsigned(0xFF))
    t.add("btcommon.eir_ad.entry.device_name", text: "Hue Lamp")
    t.add("adv.uuid", .uuid(BluetoothUUID(uuid16: 0x180F)))
    t.add("adv.uuid", .uuid(BluetoothUUID(high: 0x0000_FEAA_0000_1000, low: BluetoothUUID.baseLow, width: 16)))
    t.add("adv.uuid", .uuid(BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E, width: 16)))
    t.add("bthci_evt.rssi", .signed(-87))
    t.close()
    return t
}

@Suite("operators")
struct OperatorTests {
    @Test("comparison operators and their keywords")
    func comparisons() {
        let t = writeRequestTree()
        t.expect(
            [
                "btatt.opcode == 0x12", "btatt.opcode eq 0x12", "btatt.opcode any_eq 0x12", "btatt.opcode != 0x13",
                "btatt.opcode ne 0x13", "btatt.opcode all_ne 0x13", "btatt.opcode < 0x13", "btatt.opcode lt 0x13",
                "btatt.opcode <= 0x12", "btatt.opcode le 0x12", "btatt.opcode > 0x11", "btatt.opcode gt 0x11",
                "btatt.opcode >= 0x12", "btatt.opcode ge 0x12", "btatt.opcode === 0x12", "btatt.opcode all_eq 0x12",
                "btatt.opcode !== 0x13", "btatt.opcode ~= 0x13", "btatt.opcode any_ne 0x13", "btatt.opcode==0x12",
                "btatt.opcode EQ 0x12",
            ],
            not: [
                "btatt.opcode == 0x13", "btatt.opcode != 0x12", "btatt.opcode < 0x12", "btatt.opcode <= 0x11",
                "btatt.opcode > 0x12", "btatt.opcode >= 0x13", "btatt.opcode === 0x13", "btatt.opcode ~= 0x12",
            ]
        )
    }

    @Test("logical operators, precedence and parentheses")
    func logic() {
        let t = writeRequestTree()
        t.expect(
            [
                "btatt && btl2cap", "btatt and btl2cap", "btatt || btsmp", "btsmp or btatt", "!btsmp", "not btsmp",
                "!!btatt", "not not btatt", "btsmp || btatt && btl2cap", "btatt && btl2cap || btsmp",
                "!(btsmp || btl2cap.cid == 5)", "!btatt.opcode == 0x13", "(((btatt)))", "btatt&&!btsmp",
                "btatt AND btl2cap", "btsmp OR btatt",
            ],
            not: [
                "btatt && btsmp", "btsmp || bthci_evt", "!btatt", "(btsmp || btatt) && bthci_evt",
                "btsmp and btatt or bthci_evt", "not (btatt)",
            ]
        )
    }

    @Test("contains, matches, in and not in")
    func membership() {
        let t = writeRequestTree()
        t.expect(
            [
                "btatt.value contains 00", "btatt.value contains 01:00", "btatt.value matches \"^\\\\x01\"",
                "btatt.value ~ \"\\\\x00$\"", "btatt.opcode in {0x12}", "btatt.opcode in {0x10,0x12 , 0x14}",
                "btatt.opcode in {0x10, 0x12, 0x14}", "btatt.opcode in {0x10..0x13}",
                "btatt.opcode in {1, 0x11 .. 0x12}",
                "btatt.opcode in {\"Read Request\", \"Write Request\"}", "btatt.opcode not in {0x13, 0x52}",
                "btatt.handle in {0x0001..0x0029, 0x002a}", "!btatt.opcode in {0x13}",
            ],
            not: [
                "btatt.value contains 02", "btatt.opcode in {0x13, 0x52}", "btatt.opcode not in {0x12}",
                "btatt.opcode in {0x13..0x20}", "btsmp.opcode in {1}",
            ]
        )
        // `not in` is `!(… in …)`: true when the field is absent.
        t.expect(["btsmp.opcode not in {1, 2}"])
    }

    @Test("bit masks, len() and count()")
    func functions() {
        let t = advertisingTree()
        t.expect(
            [
                "btcommon.eir_ad.entry.type & 0x80", "btcommon.eir_ad.entry.type & 0x0a == 0x0a",
                "bthci_evt.le_meta_subevent & 0x02", "len(btcommon.eir_ad.entry.device_name) == 8",
                "len(bthci_evt.bd_addr) == 6", "count(btcommon.eir_ad.entry.type) == 3",
                "count(adv.uuid) > 2", "count(bthci_evt.rssi) == 1",
            ],
            not: [
                "bthci_evt.le_meta_subevent & 0x01", "count(btcommon.eir_ad.entry.type) < 3",
                "count(btatt.opcode) == 0", "len(btcommon.eir_ad.entry.device_name) > 8",
            ]
        )
        writeRequestTree().expect(["len(btatt.value) == 2", "len(btatt) == 5", "len(btl2cap) == 9"])
    }

    @Test("fields on both sides of a comparison")
    func fieldToField() {
        var t = writeRequestTree()
        t.add("btatt.handle_in_error", .unsigned(0x2A))
        t.expect(
            [
                "btatt.handle == btatt.handle_in_error", "btatt.opcode > btl2cap.cid", "btl2cap.cid <= btl2cap.length",
                "btatt.value == btatt.value", "btatt.opcode in {btatt.opcode}", "btatt.handle in {1, btatt.handle}",
            ],
            not: [
                "btatt.handle != btatt.handle_in_error", "btatt.opcode < btl2cap.cid", "btatt.handle == btsmp.opcode",
            ]
        )
    }
}

@Suite("repeated fields")
struct RepeatedFieldTests {
    // btcommon.eir_ad.entry.type occurs three times: 0x01, 0x0a, 0xff.
    let t = advertisingTree()

    @Test("== and the orderings hold when any occurrence does")
    func any() {
        t.expect(
            [
                "btcommon.eir_ad.entry.type == 0x01", "btcommon.eir_ad.entry.type == 0x0a",
                "btcommon.eir_ad.entry.type == 0xff", "btcommon.eir_ad.entry.type > 0xfe",
                "btcommon.eir_ad.entry.type < 0x02", "btcommon.eir_ad.entry.type in {0x0a}",
            ],
            not: ["btcommon.eir_ad.entry.type == 0x09", "btcommon.eir_ad.entry.type > 0xff"]
        )
    }

    @Test("!= is all-not-equal; ~= and !== any-not-equal; === all-equal")
    func allAndAnyNotEqual() {
        t.expect(
            [
                "btcommon.eir_ad.entry.type != 0x09", "btcommon.eir_ad.entry.type ~= 0x01",
                "btcommon.eir_ad.entry.type !== 0x01", "btcommon.eir_ad.entry.type any_ne 0x01",
                "!(btcommon.eir_ad.entry.type == 0x09)",
            ],
            not: [
                "btcommon.eir_ad.entry.type != 0x01", "btcommon.eir_ad.entry.type ne 0x0a",
                "btcommon.eir_ad.entry.type === 0x01", "btcommon.eir_ad.entry.type all_eq 0xff",
            ]
        )
        var same = TestTree()
        same.add("btcommon.eir_ad.entry.type", .unsigned(0x16))
        same.add("btcommon.eir_ad.entry.type", .unsigned(0x16))
        same.expect(["btcommon.eir_ad.entry.type === 0x16"], not: ["btcommon.eir_ad.entry.type ~= 0x16"])
    }

    @Test("an absent field: every comparison is false, `!(a == b)` and `not in` are true")
    func absent() {
        t.expect(
            ["!(btatt.opcode == 0x12)", "btatt.opcode not in {0x12}", "!btatt.opcode"],
            not: [
                "btatt.opcode == 0x12", "btatt.opcode != 0x12", "btatt.opcode ~= 0x12", "btatt.opcode === 0x12",
                "btatt.opcode < 0xff", "btatt.value contains 00", "btatt.opcode in {0x12}", "btatt.value[0] != 00",
                "count(btatt.opcode) == 0",
            ]
        )
    }

    @Test("occurrences too short for a slice are skipped")
    func shortSlices() {
        var t = TestTree(bytes: [0x01, 0x02, 0x03, 0x04])
        t.add("btatt.value", .bytes, 0..<1)
        t.add("btatt.value", .bytes, 0..<4)
        t.expect(
            ["btatt.value[2] == 03", "btatt.value[2] != 04", "btatt.value[2] === 03", "btatt.value[3:]"],
            not: ["btatt.value[2] == 01", "btatt.value[2] ~= 03", "btatt.value[4:1]"]
        )
        // No occurrence is long enough: == is false; != and === hold vacuously (as in Wireshark).
        t.expect(["btatt.value[9] != 00", "btatt.value[9] === 00"], not: ["btatt.value[9] == 00"])
    }

    @Test("fields on both sides: any pair, or every pair")
    func pairs() {
        var t = TestTree()
        t.add("btatt.handle", .unsigned(1))
        t.add("btatt.handle", .unsigned(2))
        t.add("btatt.handle_in_error", .unsigned(2))
        t.expect(
            ["btatt.handle == btatt.handle_in_error", "btatt.handle ~= btatt.handle_in_error"],
            not: ["btatt.handle != btatt.handle_in_error", "btatt.handle === btatt.handle_in_error"]
        )
    }
}
