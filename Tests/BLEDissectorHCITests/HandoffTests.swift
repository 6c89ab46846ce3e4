import BLEDissectorHCI
import BLEInspectCore
import Testing

/// The layer graph the registry learns from bindings' scopes (`BindingScope`), and the rules the
/// engine holds dissectors to: capture state only for a binding that asked for it, and no
/// unrecorded handoff from a stateless binding into a stateful one.
@Suite struct HandoffTests {
    /// A table of its own, a stateless header that hands off by the key in its first byte, and two
    /// bindings beneath: key 1 uses capture state, key 2 does not.
    enum Layered: DissectorModule {
        static let name = "layered"
        static let table = Table<UInt8>("layered.kind")

        struct Header: Dissector {
            let next: Handoff<UInt8>
            func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
                let kind = try r.readUInt8()
                var rest = r.readRest()
                c.handOff(next, kind, &rest)
            }
        }

        struct Counting: Dissector {
            final class Count { var value = 0 }
            func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
                c.state.module(Count.self) { Count() }.value += 1
            }
        }

        struct Plain: Dissector {
            func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) { _ = r.readRest() }
        }

        static func register(_ registry: inout RegistryBuilder) {
            registry.declare(table, "layered test table")
            registry.bind(to: StandardTables.hciPacketType, key: 4, label: "header") { s in
                Header(next: s.handoff(into: table, keyAt: KeyPosition(offset: 0, payload: 1)))
            }
            registry.bind(to: table, key: 1, label: "counting") { s in
                s.usesCaptureState()
                return Counting()
            }
            registry.bind(Plain(), to: table, key: 2, label: "plain")
        }
    }

    static func frame(_ bytes: [UInt8]) -> CapturedFrame {
        CapturedFrame(
            number: 1,
            timestamp: Timestamp(seconds: 0, nanoseconds: 0, precision: .microseconds),
            direction: .controllerToHost,
            controllerIndex: nil,
            kind: .hciEvent,
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
    }

    /// Builds a registry of `module` alone and dissects one event frame with it (in exit tests).
    static func dissectOneFrame(with module: any DissectorModule.Type) throws {
        var engine = DissectionEngine(registry: try RegistryBuilder.build(modules: [module]))
        engine.dissect(frame([1]), wantsInfo: false) { _ in }
    }

    @Test("the engine follows the graph by the key's place: a frame is stateless when what it reaches is")
    func statelessByKey() throws {
        let registry = try RegistryBuilder.build(modules: [Layered.self])
        var engine = DissectionEngine(registry: registry)
        engine.runsPostDissectors = false
        #expect(!engine.decodesWithoutState(Self.frame([1, 0xAA])))
        #expect(engine.decodesWithoutState(Self.frame([2, 0xAA])))
        #expect(!engine.decodesWithoutState(Self.frame([3])))  // unbound: not known to be stateless
        #expect(!engine.decodesWithoutState(Self.frame([])))  // no key
        let header = try #require(registry.binding(StandardTables.hciPacketType, 4))
        #expect(!header.usesState && !header.keepsNoState)
        #expect(registry.binding(Layered.table, 2)?.keepsNoState == true)
        #expect(registry.ownersBeneath(header) == ["layered"])
    }

    @Test("a table's dense range ends at its highest key: a key past it has no binding, and its bytes stay data")
    func denseRange() throws {
        let registry = try RegistryBuilder.build(modules: [Layered.self])
        #expect(registry.binding(Layered.table, 2) != nil)
        #expect(registry.binding(Layered.table, 0) == nil)
        #expect(registry.binding(Layered.table, 3) == nil)
        #expect(registry.binding(Layered.table, 0xFF) == nil)
        #expect(registry.binding(Layered.table, DissectorKey(0x1_0000)) == nil)
        var engine = DissectionEngine(registry: registry)
        engine.runsPostDissectors = false
        #expect(!engine.decodesWithoutState(Self.frame([0xFF, 0xAA])))
        var names: [String] = []
        engine.dissect(Self.frame([0xFF, 0xAA, 0xBB]), wantsInfo: false) { tree in
            names = tree.nodes.map { registry.descriptor($0.field).abbrev }
        }
        #expect(names.last == "data.data")
    }

    @Test("a dissector that reads capture state without its binding asking traps")
    func unaskedState() async {
        await #expect(processExitsWith: .failure) {
            enum Sneaky: DissectorModule {
                static let name = "sneaky"
                static func register(_ registry: inout RegistryBuilder) {
                    registry.bind(HandoffTests.Layered.Counting(), to: StandardTables.hciPacketType, key: 4)
                }
            }
            try HandoffTests.dissectOneFrame(with: Sneaky.self)
        }
        // The same dissector, its binding asking for state: it runs.
        await #expect(processExitsWith: .success) {
            enum Honest: DissectorModule {
                static let name = "honest"
                static func register(_ registry: inout RegistryBuilder) {
                    registry.bind(to: StandardTables.hciPacketType, key: 4) { s in
                        s.usesCaptureState()
                        return HandoffTests.Layered.Counting()
                    }
                }
            }
            try HandoffTests.dissectOneFrame(with: Honest.self)
        }
    }

    @Test("a stateless binding that hands off without recording it, into a stateful one, traps")
    func unrecordedHandoff() async {
        await #expect(processExitsWith: .failure) {
            enum Unrecorded: DissectorModule {
                static let name = "unrecorded"
                static func register(_ registry: inout RegistryBuilder) {
                    registry.declare(HandoffTests.Layered.table, "layered test table")
                    let next = registry.handoff(into: HandoffTests.Layered.table)  // no edge recorded
                    registry.bind(HandoffTests.Layered.Header(next: next), to: StandardTables.hciPacketType, key: 4)
                    registry.bind(to: HandoffTests.Layered.table, key: 1) { s in
                        s.usesCaptureState()
                        return HandoffTests.Layered.Counting()
                    }
                }
            }
            try HandoffTests.dissectOneFrame(with: Unrecorded.self)
        }
    }

    @Test("a key of the wrong kind for its table is a registry error with its code")
    func keyKind() {
        enum Wrong: DissectorModule {
            static let name = "wrong"
            static func register(_ registry: inout RegistryBuilder) {
                registry.bind(
                    ClosureDissector { _, _ in },
                    to: StandardTables.hciPacketType,
                    key: DissectorKey(BluetoothUUID(uuid16: 0x180A))
                )
            }
        }
        do {
            _ = try RegistryBuilder.build(modules: [Wrong.self])
            Issue.record("the registry built")
        } catch {
            #expect(error.codes == [.keyKindMismatch])
        }
    }

    @Test("HCI's advertising reports hand off to the advertising data, and nothing beneath them uses state")
    func hciGraph() throws {
        let registry = try RegistryBuilder.build(modules: [HCIModule.self])
        let report = try #require(registry.binding(StandardTables.leMetaSubevent, 0x02))
        #expect(!report.usesState)
        let meta = try #require(registry.binding(StandardTables.hciEvent, 0x3E))
        #expect(!meta.usesState && !meta.keepsNoState)  // stateful subevents beneath
        #expect(registry.binding(StandardTables.hciPacketType, 2)?.usesState == true)  // ACL reassembly
    }
}
