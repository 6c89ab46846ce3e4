import BLEDissectorHCI
import BLEInspectCore
import Testing

@Suite("registry errors with codes")
struct RegistryErrorCodeTests {
    @Test("a module registered twice: every problem has its code and its message")
    func twice() {
        do {
            _ = try RegistryBuilder.build(modules: [HCIModule.self, HCIModule.self])
            Issue.record("the registry built")
        } catch {
            #expect(error.codes.contains(.fieldRegisteredTwice))
            #expect(error.codes.contains(.duplicateKey))
            #expect(error.codes.count == error.problems.count)
            #expect(error.issues.map(\.message) == error.problems)
            #expect(error.problems.contains { $0.hasPrefix("field hci_h4.type registered twice") })
        }
    }
}
