import BLEInspect
import BLEInspectCore
import Testing

@testable import BLEInspectCLI

/// A module that takes a built-in field name and a built-in binding, as a package's module might
/// by mistake.
enum ClashingField: UInt16, FieldSet {
    case opcode
    static let layer = FieldDescriptor("clash", "Clash", .layer)
    var descriptor: FieldDescriptor { FieldDescriptor("btatt.opcode", "Opcode", .unsigned(bits: 8)) }
}

enum ClashingModule: DissectorModule {
    static let name = "clashing"
    static func register(_ registry: inout RegistryBuilder) {
        _ = registry.register(ClashingField.self)
        registry.bind(ClosureDissector { _, _ in }, to: StandardTables.l2capCID, key: DissectorKey(0x0004))
    }
}

/// A module that registers nothing: registering it for the whole test process changes no registry.
enum EmptyModule: DissectorModule {
    static let name = "empty"
    static func register(_ registry: inout RegistryBuilder) {}
}

/// Extra modules (`StandardModules.register`, `BLEInspectTool.main(modules:)`).
@Suite("extra dissector modules")
struct ExtraModulesTests {
    @Test("a module that clashes with the built-in ones is reported by name, every problem on its line")
    func clash() throws {
        #expect(BLEInspectTool.registryProblem(StandardModules.builtIn) == nil)
        let message = try #require(BLEInspectTool.registryProblem(StandardModules.builtIn + [ClashingModule.self]))
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines.first == "bleinspect: the dissector registry does not build with the added modules (clashing):")
        #expect(lines.contains("  field btatt.opcode registered twice (by att and clashing)"))
        #expect(lines.contains("  duplicate key 0x4 in table btl2cap.cid: bound by att and by clashing"))
    }

    @Test("registered modules join StandardModules.all once; built-in ones are not added again")
    func register() throws {
        let builtIn = StandardModules.builtIn.map { ObjectIdentifier($0) }
        StandardModules.register([EmptyModule.self, EmptyModule.self] + StandardModules.builtIn.prefix(1))
        StandardModules.register([EmptyModule.self])
        let extras = StandardModules.extras.map { ObjectIdentifier($0) }
        #expect(extras.filter { $0 == ObjectIdentifier(EmptyModule.self) }.count == 1)
        #expect(!extras.contains { builtIn.contains($0) })
        #expect(StandardModules.all.map { ObjectIdentifier($0) } == builtIn + extras)
        #expect(
            try StandardModules.registry().fields.count
                == RegistryBuilder.build(modules: StandardModules.builtIn).fields.count
        )
    }
}
