import BLEInspectCore
import Testing

/// A field set whose cases are declared out of raw-value order.
private enum ShuffledField: UInt16, FieldSet {
    case second = 1
    case first = 0
    case third = 2

    static let layer = FieldDescriptor("shuffled", "Shuffled", .layer)
    var descriptor: FieldDescriptor {
        switch self {
        case .first: .uint("shuffled.first", "First", 8)
        case .second: .uint("shuffled.second", "Second", 8)
        case .third: .uint("shuffled.third", "Third", 8)
        }
    }
}

/// A field set whose raw values skip one.
private enum GappedField: UInt16, FieldSet {
    case first = 0
    case third = 2

    static let layer = FieldDescriptor("gapped", "Gapped", .layer)
    var descriptor: FieldDescriptor {
        switch self {
        case .first: .uint("gapped.first", "First", 8)
        case .third: .uint("gapped.third", "Third", 8)
        }
    }
}

private enum ShuffledModule: DissectorModule {
    static let name = "shuffled"
    static func register(_ registry: inout RegistryBuilder) {
        _ = registry.register(ShuffledField.self)
    }
}

private enum GappedModule: DissectorModule {
    static let name = "gapped"
    static func register(_ registry: inout RegistryBuilder) {
        _ = registry.register(GappedField.self)
    }
}

@Suite("registering a field set")
struct FieldSetOrderTests {
    @Test("cases declared out of order get ids in raw-value order, after their layer")
    func shuffled() throws {
        let registry = try RegistryBuilder.build(modules: [ShuffledModule.self])
        let layer = try #require(registry.field(named: "shuffled"))
        let ids = ["shuffled.first", "shuffled.second", "shuffled.third"].map { registry.field(named: $0) }
        #expect(ids == [1, 2, 3].map { FieldID(layer.rawValue + $0) })
        #expect(ids.compactMap { $0 }.map { registry.fields[Int($0.rawValue)].name } == ["First", "Second", "Third"])
    }

    @Test("raw values that skip one are a problem with its code, naming the case")
    func gapped() {
        do {
            _ = try RegistryBuilder.build(modules: [GappedModule.self])
            Issue.record("the registry built")
        } catch {
            #expect(error.codes == [.fieldNumbering])
            #expect(error.problems.contains { $0.contains("third is 2, expected 1") })
        }
    }
}
