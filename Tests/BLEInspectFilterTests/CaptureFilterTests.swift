import BLECapture
import BLEInspectCore
import BLEInspectFilter
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import Testing

/// Filters over the project's own captures, dissected by the real modules. The expected frame
/// numbers are what `tshark -r FILE -Y EXPR -T fields -e frame.number` (4.0.17) prints; these
/// run without tshark.
@Suite("filters over the project's captures")
struct CaptureFilterTests {
    static func frames(_ name: String, _ filters: [String]) throws -> [[Int]] {
        let capture = CaptureFiles.readAll(TestPaths.projectCapture(name))
        let compiled = try filters.map { f throws(FilterError) in try FilterHarness.compile(f) }
        return FilterHarness.matchingFrames(capture.frames, compiled)
    }

    @Test("SMP pairing")
    func smp() throws {
        let r = try Self.frames(
            "smp-pairing.btsnoop",
            [
                "btsmp.io_capability == 0x03", "btsmp.opcode in {0x08..0x0a}", "btsmp.opcode == \"Pairing Confirm\"",
                "btsmp", "btsmp.max_enc_key_size == 16 && btsmp.opcode == 0x02",
            ]
        )
        #expect(r[0] == [32, 34])
        #expect(r[1] == [52, 53, 54, 55, 56, 57])
        #expect(r[2] == [42])
        #expect(r[3] == [32, 34, 37, 41, 42, 43, 45, 46, 48, 52, 53, 54, 55, 56, 57])
        #expect(r[4] == [34])
    }

    @Test("L2CAP credit-based channels")
    func l2cap() throws {
        let r = try Self.frames(
            "le-coc.btsnoop",
            [
                "btl2cap.cmd_code == 0x14", "btl2cap.le_psm == 0x0085",
                "btl2cap.cmd_code == 0x15 || btl2cap.cmd_code == 0x14",
            ]
        )
        #expect(r[0] == [47])
        #expect(r[1] == [47])
        #expect(r[2] == [47, 49])
    }

    @Test("advertising: a 16-bit UUID equals its 128-bit form; addresses in any spelling")
    func advertising() throws {
        let r = try Self.frames(
            "adv-scan.btsnoop",
            [
                "btcommon.eir_ad.entry.uuid_16 == 0x180f", "adv.uuid == 0x180f",
                "adv.uuid == 0000180F-0000-1000-8000-00805F9B34FB", "adv.uuid == 0000180f00001000800000805f9b34fb",
                "adv.uuid in {0x180a}", "bthci_evt.bd_addr == c0:de:c0:de:00:02",
                "bthci_evt.bd_addr == C0-DE-C0-DE-00-02",
                "bthci_evt.bd_addr[0:2] == c0:de && bthci_evt.rssi == -50",
            ]
        )
        #expect(!r[0].isEmpty)
        #expect(r[1] == r[0])
        #expect(r[2] == r[0])
        #expect(r[3] == r[0])
        #expect(r[4] == r[0])
        #expect(Array(r[5].prefix(4)) == [33, 34, 35, 36])
        #expect(r[6] == r[5])
        #expect(r[7] == r[5])
    }

    @Test("GATT writes and notifications")
    func gatt() throws {
        let r = try Self.frames(
            "gatt-discovery.btsnoop",
            [
                "btatt.opcode == 0x12 || btatt.opcode == 0x1b", "btatt.opcode == \"Handle Value Notification\"",
                "btatt.opcode == 0x1b && btatt.handle == 0x0010",
            ]
        )
        #expect(r[0] == [92, 95, 96, 97])
        #expect(r[1] == [95, 96, 97])
        #expect(r[2] == [95, 96, 97])
    }

    @Test("the fields a filter reads")
    func fieldsUsed() throws {
        let f = try FilterHarness.compile(
            "btatt.opcode == 0x12 && (btatt.value[0] == 01 || !btsmp) && count(btl2cap.cid) > 1"
        )
        let registry = FilterHarness.registry
        let names = Set(f.fieldsUsed.map { registry.descriptor($0).abbrev })
        #expect(names == ["btatt.opcode", "btatt.value", "btsmp", "btl2cap.cid"])
        #expect(f.text == "btatt.opcode == 0x12 && (btatt.value[0] == 01 || !btsmp) && count(btl2cap.cid) > 1")
        // Aliases read the field they name.
        let alias = try FilterHarness.compile("adv.rssi < -60")
        #expect(alias.fieldsUsed == [TestTree.id("bthci_evt.rssi")])
    }
}
