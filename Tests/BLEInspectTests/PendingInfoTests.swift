import BLEInspectCore
import Testing

/// A summary set as a fixed text and a hex number is written only when needed
/// (`ProtocolTree.pendingInfo`); everything that reads or extends the summary must see the same
/// bytes as if it had been written at once.
@Suite("summaries written when needed")
struct PendingInfoTests {
    /// The tree with the summary "Rcvd ACL Data, Handle 0x0040" pending.
    static func pending() -> ProtocolTree {
        var tree = ProtocolTree()
        tree.appendInfo("replaced")
        tree.setInfo(PendingInfo("Rcvd ACL Data, Handle ", hex16: 0x40))
        return tree
    }

    @Test("a pending summary reads as written: its text, length and bytes")
    func readsAsWritten() {
        let tree = Self.pending()
        #expect(tree.info == "Rcvd ACL Data, Handle 0x0040")
        #expect(tree.infoCount == "Rcvd ACL Data, Handle 0x0040".utf8.count)
        #expect(tree.withInfoBytes { Array($0) } == Array("Rcvd ACL Data, Handle 0x0040".utf8))
    }

    @Test("appending writes the pending summary first")
    func appendAfterPending() {
        var tree = Self.pending()
        tree.appendInfo(" [Malformed]")
        #expect(tree.info == "Rcvd ACL Data, Handle 0x0040 [Malformed]")
        var hex = Self.pending()
        hex.appendInfoHex(0xAB, digits: 2)
        #expect(hex.info == "Rcvd ACL Data, Handle 0x00400xAB")
    }

    @Test("a later summary or a clear replaces it; settling writes it once")
    func replacedClearedSettled() {
        var tree = Self.pending()
        tree.info = "L2CAP"
        #expect(tree.info == "L2CAP")
        var cleared = Self.pending()
        cleared.clearInfo()
        #expect(cleared.info.isEmpty && cleared.infoCount == 0)
        var settled = Self.pending()
        settled.settleInfo()
        settled.settleInfo()
        #expect(settled.info == "Rcvd ACL Data, Handle 0x0040")
    }

    @Test("the summary's version changes with every change, and only then")
    func version() {
        var tree = ProtocolTree()
        let start = tree.infoVersion
        _ = tree.info
        #expect(tree.infoVersion == start)
        tree.setInfo(PendingInfo("CID ", hex16: 4))
        let set = tree.infoVersion
        #expect(set != start)
        tree.appendInfo(", more")
        #expect(tree.infoVersion != set)
    }

    @Test("a flat tree carries a pending summary")
    func flatCarriesPending() {
        let tree = Self.pending()
        var flat: [UInt8] = []
        tree.writeFlat { flat.append(contentsOf: $0) }
        var copy = ProtocolTree()
        flat.withUnsafeBytes { copy.load(flat: $0) }
        #expect(copy.info == "Rcvd ACL Data, Handle 0x0040")
    }
}
