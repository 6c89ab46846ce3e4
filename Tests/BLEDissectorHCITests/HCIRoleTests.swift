import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// The roles HCI declares for views (`KeyRole`), checked against the command and event names the
/// bindings carry (the specification's names, a list of their own).
@Suite struct HCIRoleTests {
    static let expectedCommands: [String: KeyRole] = [
        "Reset": .controllerReset,
        "LE Set Advertising Parameters": .advertisingParameters(extended: false),
        "LE Set Advertising Data": .advertisingData(scanResponse: false, extended: false),
        "LE Set Scan Response Data": .advertisingData(scanResponse: true, extended: false),
        "LE Set Advertising Enable": .advertisingEnable(extended: false),
        "LE Set Extended Advertising Parameters [v1]": .advertisingParameters(extended: true),
        "LE Set Extended Advertising Parameters [v2]": .advertisingParameters(extended: true),
        "LE Set Extended Advertising Data": .advertisingData(scanResponse: false, extended: true),
        "LE Set Extended Scan Response Data": .advertisingData(scanResponse: true, extended: true),
        "LE Set Extended Advertising Enable": .advertisingEnable(extended: true),
        "LE Remove Advertising Set": .removeAdvertisingSet,
        "LE Clear Advertising Sets": .clearAdvertisingSets,
    ]

    @Test("each command role names the command the specification names")
    func commands() {
        let registry = Dissect.registry()
        let roles = registry.roles(in: StandardTables.hciCommand)
        var byName: [String: KeyRole] = [:]
        for (opcode, role) in roles {
            let label = registry.binding(StandardTables.hciCommand, DissectorKey(opcode))?.label ?? "unbound"
            byName[label] = role
        }
        #expect(byName == Self.expectedCommands)
    }

    @Test("connection-complete and report subevents are the events of those names")
    func subevents() {
        let registry = Dissect.registry()
        for (code, role) in registry.roles(in: StandardTables.leMetaSubevent) {
            let label = registry.binding(StandardTables.leMetaSubevent, DissectorKey(code))?.label ?? "unbound"
            switch role {
            case .connectionComplete: #expect(label.contains("Connection Complete"), "\(code): \(label)")
            case .advertisingReport(let extended):
                #expect(label.contains("Advertising Report") && label.contains("Extended") == extended, "\(label)")
            case .advertisingSetTerminated: #expect(label == "LE Advertising Set Terminated")
            default: Issue.record("unexpected role \(role) for subevent \(code)")
            }
        }
        #expect(registry.keys(in: StandardTables.leMetaSubevent, playing: .connectionComplete) == [0x01, 0x0A, 0x29])
    }

    enum Conflicting: DissectorModule {
        static let name = "conflicting"
        static func register(_ registry: inout RegistryBuilder) {
            registry.declareRole(.removeAdvertisingSet, table: StandardTables.hciCommand, key: 0x203D)
        }
    }

    @Test("a key given two roles is a registry error with its code")
    func twoRoles() {
        do {
            _ = try RegistryBuilder.build(modules: [HCIModule.self, Conflicting.self])
            Issue.record("the registry built")
        } catch {
            #expect(error.codes == [.keyRoleTwice])
            #expect(error.problems.first?.contains("0x203D") == true)
        }
    }
}
