import BLEInspectCore
import BLEInspectFilter
import Testing

/// A hand-made tree of real registry fields, for testing the filter language precisely.
struct TestTree {
    var tree = ProtocolTree()
    /// The frame's own bytes (data source 0).
    var bytes: [UInt8]

    init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    static func id(_ name: String) -> FieldID {
        guard let id = FilterHarness.registry.index[name] else {
            Issue.record("no field \(name)")
            return FieldID(0)
        }
        return id
    }

    /// Adds a node of the field `name`.
    mutating func add(_ name: String, _ value: FieldValue, _ range: Range<Int> = 0..<0, source: Int = 0) {
        tree.add(Self.id(name), value, range, source: source)
    }

    /// Adds a node of the field `name` whose value is `text`.
    mutating func add(_ name: String, text: String, _ range: Range<Int> = 0..<0, source: Int = 0) {
        tree.add(Self.id(name), text: text, range, source: source)
    }

    /// Adds a node of `name` and nests the following ones in it until `close()`.
    mutating func open(_ name: String, _ range: Range<Int> = 0..<0, source: Int = 0) {
        tree.open(Self.id(name), .none, range, source: source)
    }

    mutating func close() { tree.close() }

    /// Adds a data source (a reassembled PDU) and returns its number.
    mutating func source(_ bytes: [UInt8]) -> Int { tree.addSource(bytes, name: "test") }

    func matches(_ filter: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        do {
            let f = try FilterHarness.compile(filter)
            return f.matches(tree, frameBytes: bytes)
        } catch {
            Issue.record("\(filter) does not compile: \(error)", sourceLocation: sourceLocation)
            return false
        }
    }

    /// Expects each filter of `yes` to match and each of `no` not to.
    func expect(_ yes: [String], not no: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        for f in yes {
            #expect(matches(f, sourceLocation: sourceLocation), "\(f) should match", sourceLocation: sourceLocation)
        }
        for f in no {
            #expect(
                !matches(f, sourceLocation: sourceLocation),
                "\(f) should not match",
                sourceLocation: sourceLocation
            )
        }
    }
}
