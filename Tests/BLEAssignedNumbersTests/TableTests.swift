import BLEAssignedNumbers
import Testing

/// The generated tables are what the lookups assume: parallel arrays of equal length, keys strictly
/// ascending (so sorted and free of duplicates), names non-empty.
@Suite struct TableTests {
    struct Table16: Sendable, CustomTestStringConvertible {
        let name: String
        let keys: [UInt16]
        let names: [StaticString]
        var testDescription: String { name }
    }

    struct Table128: Sendable, CustomTestStringConvertible {
        let name: String
        /// High then low half of each UUID.
        let keys: [UInt64]
        let names: [StaticString]
        var testDescription: String { name }
    }

    static let tables16 = [
        Table16(name: "company", keys: AssignedNumbers.companyKeys, names: AssignedNumbers.companyNames),
        Table16(name: "service", keys: AssignedNumbers.service16Keys, names: AssignedNumbers.service16Names),
        Table16(
            name: "characteristic",
            keys: AssignedNumbers.characteristic16Keys,
            names: AssignedNumbers.characteristic16Names
        ),
        Table16(
            name: "descriptor",
            keys: AssignedNumbers.descriptor16Keys,
            names: AssignedNumbers.descriptor16Names
        ),
    ]

    static let tables128 = [
        Table128(
            name: "service",
            keys: AssignedNumbers.service128Keys,
            names: AssignedNumbers.service128Names
        ),
        Table128(
            name: "characteristic",
            keys: AssignedNumbers.characteristic128Keys,
            names: AssignedNumbers.characteristic128Names
        ),
        Table128(
            name: "descriptor",
            keys: AssignedNumbers.descriptor128Keys,
            names: AssignedNumbers.descriptor128Names
        ),
    ]

    @Test(arguments: tables16)
    func table16IsSortedWithoutDuplicates(table: Table16) {
        #expect(table.keys.count == table.names.count)
        for index in table.keys.indices.dropFirst() {
            #expect(table.keys[index - 1] < table.keys[index], "keys[\(index)] of \(table.name)")
        }
        #expect(table.names.allSatisfy { !AssignedNumbers.string($0).isEmpty })
    }

    @Test(arguments: tables16)
    func everyKeyIsFoundAtItsPosition(table: Table16) {
        for (position, key) in table.keys.enumerated() {
            #expect(AssignedNumbers.index(of: key, in: table.keys) == position)
        }
    }

    @Test(arguments: tables128)
    func table128IsSortedWithoutDuplicates(table: Table128) {
        #expect(table.keys.count == 2 * table.names.count)
        let pairs = stride(from: 0, to: table.keys.count - 1, by: 2).map { (table.keys[$0], table.keys[$0 + 1]) }
        for index in pairs.indices.dropFirst() {
            #expect(pairs[index - 1] < pairs[index], "entry \(index) of \(table.name)")
        }
        for (position, (high, low)) in pairs.enumerated() {
            #expect(AssignedNumbers.index(of: high, low, in: table.keys) == position)
            // Base-UUID forms are stored under their 16-bit value by the generator.
            let isBaseForm =
                low == AssignedNumbers.baseUUIDLow && high & 0xFFFF_FFFF == AssignedNumbers.baseUUIDHighLow32
            #expect(!isBaseForm, "entry \(position) of \(table.name) is a base-UUID form")
        }
        #expect(table.names.allSatisfy { !AssignedNumbers.string($0).isEmpty })
    }

    /// `uuid16Name` and `uuid16Kind` rely on a 16-bit value naming at most one kind of thing.
    @Test func sixteenBitUUIDTablesAreDisjoint() {
        let services = Set(AssignedNumbers.service16Keys)
        let characteristics = Set(AssignedNumbers.characteristic16Keys)
        let descriptors = Set(AssignedNumbers.descriptor16Keys)
        #expect(services.isDisjoint(with: characteristics))
        #expect(services.isDisjoint(with: descriptors))
        #expect(characteristics.isDisjoint(with: descriptors))
    }

    @Test func binarySearchEdges() {
        #expect(AssignedNumbers.index(of: 5, in: []) == nil)
        #expect(AssignedNumbers.index(of: 5, in: [5]) == 0)
        #expect(AssignedNumbers.index(of: 4, in: [5]) == nil)
        #expect(AssignedNumbers.index(of: 6, in: [5]) == nil)
        #expect(AssignedNumbers.index(of: 0, in: [0, 1, 0xFFFF]) == 0)
        #expect(AssignedNumbers.index(of: 0xFFFF, in: [0, 1, 0xFFFF]) == 2)
        let keys: [UInt64] = [1, 1, 1, 2, 2, 0]
        #expect(AssignedNumbers.index(of: 1, 2, in: []) == nil)
        #expect(AssignedNumbers.index(of: 1, 2, in: keys) == 1)
        #expect(AssignedNumbers.index(of: 2, 0, in: keys) == 2)
        #expect(AssignedNumbers.index(of: 1, 3, in: keys) == nil)
    }
}
