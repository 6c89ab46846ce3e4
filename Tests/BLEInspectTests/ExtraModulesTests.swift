import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
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

/// Extra modules (`Toolkit(adding:)`, `BLEInspectTool.main(modules:)`).
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

    @Test("added modules join the toolkit once; built-in ones are not added again")
    func register() throws {
        let builtIn = StandardModules.builtIn.map { ObjectIdentifier($0) }
        let added: [any DissectorModule.Type] =
            [EmptyModule.self, EmptyModule.self] + StandardModules.builtIn.prefix(1) + [EmptyModule.self]
        let all = Toolkit.modules(adding: added).map { ObjectIdentifier($0) }
        let extras = Array(all.dropFirst(builtIn.count))
        #expect(extras == [ObjectIdentifier(EmptyModule.self)])
        #expect(Array(all.prefix(builtIn.count)) == builtIn)
        let toolkit = Toolkit(adding: added)
        #expect(toolkit.addedModules == [EmptyModule.name])
        #expect(
            try toolkit.registry().fields.count == RegistryBuilder.build(modules: StandardModules.builtIn).fields.count
        )
        // Another toolkit in the same process is not changed by this one: nothing is process-wide.
        #expect(Toolkit().addedModules.isEmpty)
    }

    @Test("the built-in modules are Package.swift's dissectors, each BLEDissector<Name> with its <Name>Module")
    func listsAgree() throws {
        let manifest = try String(
            contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Package.swift"),
            encoding: .utf8
        )
        let line = try #require(manifest.split(separator: "\n").first { $0.hasPrefix("let dissectors = [") })
        let names = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(StandardModules.builtIn.map { String(describing: $0) } == names.map { $0 + "Module" })
    }
}
