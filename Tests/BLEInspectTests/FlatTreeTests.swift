import BLEInspectCore
import Testing

@Suite("trees handed to another thread as bytes")
struct FlatTreeTests {
    /// A tree with every part that crosses: nodes at several depths and sources, texts, a
    /// summary, data sources with names, and derived nodes.
    static func sample() -> ProtocolTree {
        var tree = ProtocolTree()
        tree.open(FieldID(1), .none, 0..<12)
        tree.add(FieldID(2), .unsigned(0x1234), 0..<2)
        tree.add(FieldID(3), text: "Polar H10 \u{1B}[31m", 2..<8)
        let source = tree.addSource([1, 2, 3, 4, 5], name: "Reassembled L2CAP")
        tree.add(FieldID(4), .bytes, 0..<5, source: source)
        tree.close()
        tree.derivedStart = tree.nodeCount
        tree.add(FieldID(5), .address(BDAddr(rawValue: 0xA1B2_C3D4_E5F6)), 2..<8)
        tree.add(FieldID(6), .uuid(BluetoothUUID(uuid16: 0x180F)), 8..<10)
        tree.info = "Rcvd Read Response, \"Polar\""
        return tree
    }

    static func same(_ a: borrowing ProtocolTree, _ b: borrowing ProtocolTree) -> Bool {
        a.nodes.map(\.field) == b.nodes.map(\.field) && a.nodes.map(\.depth) == b.nodes.map(\.depth)
            && a.nodes.map(\.source) == b.nodes.map(\.source) && a.nodes.map(\.range) == b.nodes.map(\.range)
            && a.nodes.map(\.value) == b.nodes.map(\.value) && a.texts == b.texts && a.sources == b.sources
            && a.sourceNames == b.sourceNames && a.info == b.info && a.derivedStart == b.derivedStart
            && a.overflowed == b.overflowed
    }

    static func flat(_ tree: borrowing ProtocolTree) -> [UInt8] {
        var bytes: [UInt8] = []
        tree.writeFlat { bytes.append(contentsOf: $0) }
        return bytes
    }

    @Test("writeFlat then load(flat:) gives the same tree, into a tree that held another")
    func roundTrip() {
        let tree = Self.sample()
        let bytes = Self.flat(tree)
        var copy = ProtocolTree()
        copy.add(FieldID(9), text: "left over", 0..<1)
        _ = copy.addSource([9], name: "old")
        copy.fieldMask = FieldMask([FieldID(9)], fieldCount: 16)
        bytes.withUnsafeBytes { copy.load(flat: $0) }
        #expect(Self.same(tree, copy))
        #expect(copy.nodeCount == 6)
        // Loading again into the same tree gives the same tree again.
        bytes.withUnsafeBytes { copy.load(flat: $0) }
        #expect(Self.same(tree, copy))
    }

    @Test("without its texts, the tree loads with the texts handed over apart")
    func textsApart() {
        let tree = Self.sample()
        var bytes = [UInt8](repeating: 0, count: tree.flatByteCount(withTexts: false))
        bytes.withUnsafeMutableBytes { tree.writeFlat(to: $0, withTexts: false) }
        #expect(bytes.count < Self.flat(tree).count)
        let handed = ["earlier frame's text"] + tree.texts + ["later frame's text"]
        var copy = ProtocolTree()
        copy.add(FieldID(9), text: "left over", 0..<1)
        bytes.withUnsafeBytes { copy.load(flat: $0, texts: handed[1..<(1 + tree.texts.count)]) }
        #expect(Self.same(tree, copy))
        #expect(copy.text(TextRef(index: 0)) == "Polar H10 \u{1B}[31m")
    }

    @Test("a tree of nothing, and a tree that hit the node limit, cross as they are")
    func emptyAndOverflowed() {
        var copy = Self.sample()
        Self.flat(ProtocolTree()).withUnsafeBytes { copy.load(flat: $0) }
        #expect(Self.same(ProtocolTree(), copy))
        var full = ProtocolTree()
        for i in 0...ProtocolTree.maximumNodes { full.add(FieldID(1), .unsigned(UInt64(i)), 0..<1) }
        #expect(full.overflowed)
        Self.flat(full).withUnsafeBytes { copy.load(flat: $0) }
        #expect(Self.same(full, copy))
    }

    @Test("every prefix of the bytes loads without trapping, into a tree no larger than the whole")
    func prefixes() {
        let bytes = Self.flat(Self.sample())
        var copy = ProtocolTree()
        for n in 0...bytes.count {
            Array(bytes[0..<n]).withUnsafeBytes { copy.load(flat: $0) }
            #expect(copy.nodeCount <= 6)
            #expect(copy.texts.count <= 1)
            #expect(copy.sources.count <= 1)
        }
    }
}
