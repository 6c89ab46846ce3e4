import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Testing

@Suite("trees that keep only some fields")
struct FieldMaskTests {
    static let a = FieldID(1)
    static let b = FieldID(2)
    static let c = FieldID(3)

    @Test("nodes of other fields are not stored; depths and values of kept ones are")
    func keepsOnlyMasked() {
        var tree = ProtocolTree()
        tree.fieldMask = FieldMask([Self.a, Self.c], fieldCount: 8)
        tree.open(Self.b, .none, 0..<10)
        tree.add(Self.a, .unsigned(7), 0..<1)
        tree.add(Self.b, text: "dropped", 1..<2)
        tree.close()
        tree.add(Self.c, .unsigned(9), 2..<3)
        #expect(tree.nodes.map(\.field) == [Self.a, Self.c])
        #expect(tree.nodes.map(\.depth) == [1, 0])
        #expect(tree.nodes.map(\.value) == [.unsigned(7), .unsigned(9)])
        #expect(tree.texts.isEmpty, "the text of a dropped node is not kept")
    }

    @Test("setEnd reaches the node its handle names, and ignores a dropped one")
    func setEndHandles() {
        var tree = ProtocolTree()
        tree.fieldMask = FieldMask([Self.a, Self.c], fieldCount: 8)
        let dropped = tree.nextIndex
        tree.open(Self.b, .none, 0..<1)
        let kept = tree.nextIndex
        tree.open(Self.a, .none, 1..<2)
        tree.add(Self.c, .unsigned(1), 1..<2)
        tree.close()
        tree.close()
        tree.setEnd(ofNode: dropped, to: 50)
        tree.setEnd(ofNode: kept, to: 20)
        #expect(tree.nodes.map(\.length) == [19, 1], "only the kept node's range grows")
        // Without a mask, handles are indices.
        var plain = ProtocolTree()
        let first = plain.nextIndex
        plain.open(Self.b, .none, 0..<1)
        plain.add(Self.a, .unsigned(1), 0..<1)
        plain.close()
        plain.setEnd(ofNode: first, to: 5)
        #expect(plain.nodes.map(\.length) == [5, 1])
    }

    @Test("a filter matches the same frames whether or not the tree keeps only its fields")
    func filterCountsAgree() throws {
        // --count keeps only the filter's fields; one-line output keeps the whole tree.
        for name in ["gatt-discovery.btsnoop", "le-coc.btsnoop", "adv-scan.btsnoop", "adv-extended.btsnoop"] {
            let path = TestPaths.projectCapture(name)
            for expression in [
                "btatt.opcode == 0x09", "btl2cap.cid == 4 && btatt.handle >= 0x10", "bthci_evt.rssi < -50",
                "btl2cap.credits", "btcommon.eir_ad.entry.device_name", "_ws.malformed", "data.data",
                "frame.number > 3 && btcommon.eir_ad.entry.device_name", "frame.len > 20 && bthci_evt.rssi < -60",
                // HCI fields alone: counting skips L2CAP and everything above it.
                "bthci_acl.chandle == 0x0040", "bthci_acl.length > 20 || bthci_evt.code == 0x13",
            ] {
                let counted = try Run.bleinspect(["read", "--threads", "0", "-Y", expression, "--count", path])
                let shown = try Run.bleinspect(["read", "--threads", "0", "-Y", expression, path])
                let lines = shown.stdoutText.split(separator: "\n").count
                #expect(counted.stdoutText == "\(lines)\n", "\(name): \(expression)")
            }
        }
    }
}

@Suite("summary bytes")
struct SummaryBytesTests {
    @Test("decimal and hex numbers are written as the string forms would be")
    func numbers() {
        for value in [0, 7, 10, 65535, -1, -40, Int.max, Int.min] {
            var tree = ProtocolTree()
            tree.appendInfoDecimal(value)
            #expect(tree.info == "\(value)")
        }
        var tree = ProtocolTree()
        tree.appendInfoDecimal(UInt64.max)
        tree.appendInfo(" ")
        tree.appendInfoHex(0x40, digits: 4)
        #expect(tree.info == "\(UInt64.max) 0x0040")
    }
}
