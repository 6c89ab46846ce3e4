import BLEInspectCore
import BLEInspectFilter
import Testing

@Suite("literals")
struct LiteralTests {
    @Test("integers: hex, decimal, octal, binary, characters, signs")
    func integers() {
        let t = writeRequestTree()
        t.expect(
            [
                "btatt.opcode == 0x12", "btatt.opcode == 0X12", "btatt.opcode == 18", "btatt.opcode == 022",
                "btatt.opcode == 022", "btatt.opcode == 0b10010", "btatt.handle == 0x002a",
                "btatt.handle == '*'", "btatt.handle == '\\x2a'", "btatt.handle == '\\052'", "btl2cap.cid == 4",
                "btl2cap.cid == 00004",
            ],
            not: ["btatt.opcode == 0x13", "btatt.opcode == 12", "btatt.opcode == 012"]
        )
        let a = advertisingTree()
        a.expect(
            [
                "bthci_evt.rssi == -87", "bthci_evt.rssi == -0x57", "bthci_evt.rssi < -80", "bthci_evt.rssi > -90",
                "bthci_evt.rssi >= -127", "bthci_evt.rssi in {-90..-80}",
            ],
            not: ["bthci_evt.rssi == 87", "bthci_evt.rssi > 0", "bthci_evt.rssi in {-80..127}"]
        )
    }

    @Test("value names: quoted, any case, unquoted when one word")
    func valueNames() {
        let t = writeRequestTree()
        t.expect(
            [
                "btatt.opcode == \"Write Request\"", "btatt.opcode == \"write request\"",
                "btatt.opcode == \"WRITE REQUEST\"", "btatt.opcode != \"Read Request\"",
                "btatt.opcode in {\"Read Request\", \"Write Request\"}",
                "btatt.opcode in {\"Exchange MTU Request\"..\"Write Request\"}",
            ],
            not: ["btatt.opcode == \"Read Request\"", "btatt.opcode != \"Write Request\""]
        )
        var e = TestTree()
        e.add("_ws.expert.severity", .unsigned(2))
        e.expect(
            ["_ws.expert.severity == Warning", "_ws.expert.severity == warning", "_ws.expert.severity > Note"],
            not: ["_ws.expert.severity == Error"]
        )
    }

    @Test("booleans: 1, 0, True, False")
    func booleans() {
        let t = writeRequestTree()
        t.expect(
            [
                "btatt.opcode.command == 0", "btatt.opcode.command == False", "btatt.opcode.command == false",
                "btatt.opcode.command == FALSE", "btatt.opcode.command != 1", "btatt.opcode.command != True",
                "btatt.opcode.command == \"False\"", "btatt.opcode.command", "!(btatt.opcode.command == 1)",
            ],
            not: ["btatt.opcode.command == 1", "btatt.opcode.command == True", "btatt.opcode.command == 2"]
        )
    }

    @Test("byte strings: colons, dashes, dots, none, quoted text, characters")
    func bytes() {
        let t = writeRequestTree()
        t.expect(
            [
                "btatt.value == 01:00", "btatt.value == 01-00", "btatt.value == 01.00", "btatt.value == 0100",
                "btatt.value == 1:0", "btatt.value == \"\\x01\\x00\"", "btatt.value == \"\\001\\000\"",
                "btatt.value[0] == 1", "btatt.value[0] == 0x01", "btatt.value[0] == '\\x01'", "btatt.value[1] == 00",
                "btatt.value != 01:01", "btatt.value > 00:ff", "btatt.value > 02", "btatt.value < 00:00:00",
                "btatt.value in {00:00, 01:00}", "btatt.value in {01:00..02:00}", "btl2cap[2:2] == 04:00",
                "btatt[0] == 12",
            ],
            not: [
                "btatt.value == 01", "btatt.value == 01:00:00", "btatt.value < 01:00", "btatt.value in {00:00..00:ff}",
            ]
        )
    }

    @Test("strings: quotes, escapes, raw strings, one unquoted word, order")
    func strings() {
        let t = advertisingTree()
        t.expect(
            [
                "btcommon.eir_ad.entry.device_name == \"Hue Lamp\"",
                "btcommon.eir_ad.entry.device_name == r\"Hue Lamp\"",
                "btcommon.eir_ad.entry.device_name == \"\\x48ue\\x20Lamp\"",
                "btcommon.eir_ad.entry.device_name == \"\\110ue\\040Lamp\"",
                "btcommon.eir_ad.entry.device_name != \"Hue Lamp\\u00a0\"",
                "btcommon.eir_ad.entry.device_name contains Lamp", "btcommon.eir_ad.entry.device_name contains \"e L\"",
                "btcommon.eir_ad.entry.device_name > \"Hue\"", "btcommon.eir_ad.entry.device_name < \"I\"",
                "btcommon.eir_ad.entry.device_name in {\"Moto G6\", \"Hue Lamp\"}", "frame.kind == \"HCI Event\"",
                "adv.name == \"Hue Lamp\"",
            ],
            not: [
                "btcommon.eir_ad.entry.device_name == \"hue lamp\"", "btcommon.eir_ad.entry.device_name == Hue",
                "btcommon.eir_ad.entry.device_name contains lamp", "btcommon.eir_ad.entry.device_name > \"I\"",
            ]
        )
        var q = TestTree()
        q.add("btcommon.eir_ad.entry.device_name", text: "say \"hi\"\\\n")
        q.expect(
            ["btcommon.eir_ad.entry.device_name == \"say \\\"hi\\\"\\\\\\n\""],
            not: ["btcommon.eir_ad.entry.device_name == r\"say \\\"hi\\\"\\\\\\n\""]
        )
        var raw = TestTree()
        raw.add("btcommon.eir_ad.entry.device_name", text: "C:\\temp\\n")
        raw.expect(
            [
                "btcommon.eir_ad.entry.device_name == r\"C:\\temp\\n\"",
                "btcommon.eir_ad.entry.device_name == \"C:\\\\temp\\\\n\"",
            ],
            not: ["btcommon.eir_ad.entry.device_name == \"C:\\temp\\n\""]
        )
    }

    @Test("regular expressions: case-insensitive unless (?-i), like Wireshark")
    func regex() {
        let t = advertisingTree()
        t.expect(
            [
                "btcommon.eir_ad.entry.device_name matches \"lamp$\"",
                "btcommon.eir_ad.entry.device_name matches \"^hue\"",
                "btcommon.eir_ad.entry.device_name matches \"(?-i)^Hue\"",
                "btcommon.eir_ad.entry.device_name ~ \"u.\\\\s\"",
                "btcommon.eir_ad.entry.device_name matches \"^(moto|hue) \"",
                "btcommon.eir_ad.entry.device_name[0:3] matches \"hue\"",
            ],
            not: [
                "btcommon.eir_ad.entry.device_name matches \"(?-i)^hue\"",
                "btcommon.eir_ad.entry.device_name matches \"^Lamp\"",
            ]
        )
    }

    @Test("addresses in every spelling; slices and sets of addresses")
    func addresses() {
        let t = advertisingTree()
        t.expect(
            [
                "bthci_evt.bd_addr == 40:22:46:1d:d1:f5", "bthci_evt.bd_addr == 40:22:46:1D:D1:F5",
                "bthci_evt.bd_addr == 40-22-46-1d-d1-f5", "bthci_evt.bd_addr == 4022.461d.d1f5",
                "bthci_evt.bd_addr == 40.22.46.1d.d1.f5", "bthci_evt.bd_addr == 4022461dd1f5",
                "adv.addr == 40:22:46:1d:d1:f5",
                "bthci_evt.bd_addr != 40:22:46:1d:d1:f6", "bthci_evt.bd_addr > 40:00:00:00:00:00",
                "bthci_evt.bd_addr in {11:22:33:44:55:66, 40:22:46:1d:d1:f5}",
                "bthci_evt.bd_addr in {40:00:00:00:00:00..40:ff:ff:ff:ff:ff}", "bthci_evt.bd_addr[0:3] == 40:22:46",
                "bthci_evt.bd_addr[-1] == f5", "bthci_evt.bd_addr contains 46:1d", "bthci_evt.bd_addr[0] == 0x40",
            ],
            not: [
                "bthci_evt.bd_addr == f5:d1:1d:46:22:40", "bthci_evt.bd_addr < 40:00:00:00:00:00",
                "bthci_evt.bd_addr[0:3] == f5:d1:1d",
            ]
        )
    }

    @Test("UUIDs: 16-, 32- and 128-bit spellings; a 16-bit UUID equals its 128-bit base form")
    func uuids() {
        let t = advertisingTree()
        // The tree holds 0x180F (16-bit), 0xFEAA written as 128 bits, and a vendor 128-bit UUID.
        t.expect(
            [
                "adv.uuid == 0x180f", "adv.uuid == 180f", "adv.uuid == 180F", "adv.uuid == 0000180f",
                "adv.uuid == 0x0000180f", "adv.uuid == 0000180f-0000-1000-8000-00805f9b34fb",
                "adv.uuid == 0000180F00001000800000805F9B34FB", "adv.uuid == \"0000180f-0000-1000-8000-00805f9b34fb\"",
                "adv.uuid == 0xfeaa", "adv.uuid == feaa", "adv.uuid == 0000feaa-0000-1000-8000-00805f9b34fb",
                "adv.uuid == 6e400001-b5a3-f393-e0a9-e50e24dcca9e", "adv.uuid == 6E400001B5A3F393E0A9E50E24DCCA9E",
                "adv.uuid in {0x2a19, 0x180f}", "adv.uuid != 0x1812", "adv.uuid ~= 0x180f",
            ],
            not: [
                "adv.uuid == 0x1812", "adv.uuid != 0x180f", "adv.uuid == 6e400002-b5a3-f393-e0a9-e50e24dcca9e",
                "adv.uuid === 0x180f", "adv.uuid in {0x2a19}",
            ]
        )
    }

    @Test("times: seconds since the epoch")
    func times() {
        let t = advertisingTree()
        t.expect(
            [
                "frame.time_epoch > 1589754369", "frame.time_epoch < 1589754369.5",
                "frame.time_epoch == 1589754369.232724", "frame.time_epoch >= 1589754369.232724000",
            ],
            not: ["frame.time_epoch < 1589754369", "frame.time_epoch == 1589754369.232725"]
        )
    }

    @Test("slices: [i:j] [i-j] [i] [:j] [i:] and negative offsets, on bytes, strings, addresses, protocols")
    func slices() {
        var t = TestTree(bytes: [0x10, 0x20, 0x30, 0x40, 0x50])
        t.open("btatt", 0..<5)
        t.add("btatt.value", .bytes, 1..<5)
        t.close()
        t.expect(
            [
                "btatt.value[0:2] == 20:30", "btatt.value[1-2] == 30:40", "btatt.value[1] == 30",
                "btatt.value[:3] == 20:30:40",
                "btatt.value[2:] == 40:50", "btatt.value[-1] == 50", "btatt.value[-2:] == 40:50",
                "btatt.value[-3:2] == 30:40", "btatt.value[-3--2] == 30:40", "btatt.value[3:1] == 50",
                "btatt.value[0x1] == 30", "btatt.value[ 0 : 2 ] == 20:30", "btatt[0] == 10", "btatt[4] == 50",
                "btatt.value[4:] == \"\"", "btatt.value[1:2] contains 40", "btatt.value[0:2] == 20:30",
            ],
            not: [
                "btatt.value[3:2] == 50", "btatt.value[5:]", "btatt.value[-5:1]", "btatt.value[0:2] == 20",
                "btatt.value[1-2] == 30",
            ]
        )
        let a = advertisingTree()
        a.expect([
            "btcommon.eir_ad.entry.device_name[0:3] == \"Hue\"", "btcommon.eir_ad.entry.device_name[0:3] == 48:75:65",
            "btcommon.eir_ad.entry.device_name[-4:] == \"Lamp\"",
        ])
    }

    @Test("bytes in a reassembled data source")
    func dataSources() {
        var t = TestTree(bytes: [0xAA])
        let s = t.source([0x01, 0x02, 0x03])
        t.add("btatt.value", .bytes, 1..<3, source: s)
        t.add("btl2cap.payload", .bytes, 0..<9, source: 9)
        t.expect(
            ["btatt.value == 02:03", "btatt.value[0] == 02", "btl2cap.payload"],
            not: ["btatt.value contains aa", "btl2cap.payload[0]"]
        )
    }
}
