import BLEAdvBudgetSwift
import Testing

/// Bounds on variants, recursion through parameters, and the rule for an app's own
/// `startAdvertising(_:)`, on inline sources.
@Suite struct VariantBoundsTests {
    /// More calls than `maximumVariants`: the parameter is unknown with the reason, one reading.
    @Test func tooManyCallSitesLeaveTheParameterUnknown() throws {
        let result = scan(
            [
                (
                    "App.swift",
                    """
                    func advertise(name: String) { m.startAdvertising([CBAdvertisementDataLocalNameKey: name]) }
                    func go() {
                        advertise(name: "A")
                        advertise(name: "B")
                        advertise(name: "C")
                    }
                    """
                )
            ],
            variants: 2
        )
        let call = try #require(result.calls.count == 1 ? result.calls.first : nil)
        let reason =
            "`name`, a parameter of `func advertise` called 3 times, has 3 alternatives; more than 2 are not followed"
        #expect(call.variant == nil)
        #expect(call.localName?.resolution == .unresolved(reason: reason))
        #expect(call.warnings.map(\.kind) == [.tooManyVariants, .unresolvedValue])
    }

    /// Two choice points of two alternatives each are four paths; with at most three, the call is
    /// read once with every choice unresolved, and says so.
    @Test func tooManyPathsCollapseToOneReading() throws {
        let result = scan(
            [
                (
                    "App.swift",
                    """
                    #if DEBUG
                    let name = "D"
                    #else
                    let name = "R"
                    #endif
                    func go(fast: Bool) {
                        m.startAdvertising([
                            CBAdvertisementDataLocalNameKey: name,
                            CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: fast ? "180D" : "180F")],
                        ])
                    }
                    """
                )
            ],
            variants: 3
        )
        let call = try #require(result.calls.count == 1 ? result.calls.first : nil)
        #expect(call.variant == nil)
        #expect(
            call.localName?.resolution
                == .unresolved(
                    reason: "`name`, declared in several `#if` clauses, has 2 alternatives, and with the other choices "
                        + "of this call there are more than 3 paths; not followed"
                )
        )
        #expect(call.serviceUUIDs?.resolvedUUIDs == nil)
        #expect(call.warnings.first?.kind == .tooManyVariants)
    }

    /// Readings with the same values are one, their labels joined; one left has no label.
    @Test func identicalPathsAreMerged() throws {
        let result = scan([
            (
                "App.swift",
                """
                #if DEBUG
                let name = "Same"
                #else
                let name = "Same"
                #endif
                func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: name]) }
                func two(fast: Bool) {
                    m.startAdvertising([CBAdvertisementDataLocalNameKey: fast ? "A" : "A", "k": fast ? "x" : "y"])
                }
                """
            )
        ])
        #expect(result.calls.map(\.variant) == [nil, nil])
        #expect(result.calls.map(name) == ["Same", "A"])
    }

    /// A function passing its own parameter to itself: a cycle, not a hang.
    @Test func recursiveParameterIsACycle() throws {
        let call = try scanOne(
            """
            func advertise(name: String, times: Int) {
                if times > 0 { advertise(name: name, times: times - 1) }
                m.startAdvertising([CBAdvertisementDataLocalNameKey: name])
            }
            """
        )
        let reason = try #require(call.localName?.unresolvedReason)
        #expect(reason.contains("depends on itself"))
    }

    /// A function returning the dictionary from two branches, with a parameter bound to the call.
    @Test func functionReturningFromBranches() throws {
        let result = scan([
            (
                "App.swift",
                """
                enum Adverts {
                    static func data(name: String, compact: Bool) -> [String: Any] {
                        if compact {
                            return [CBAdvertisementDataLocalNameKey: name]
                        } else {
                            return [CBAdvertisementDataLocalNameKey: name, CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "FEAA")]]
                        }
                    }
                }
                func go() { m.startAdvertising(Adverts.data(name: "Tag", compact: true)) }
                """
            )
        ])
        #expect(result.calls.map(\.variant) == ["if compact (App.swift:3)", "else (App.swift:5)"])
        #expect(result.calls.map(name) == ["Tag", "Tag"])
        #expect(result.calls.map(uuids) == [nil, ["FEAA"]])
    }

    /// `startAdvertising(_:)` declared with a dictionary or an optional parameter is no evidence:
    /// the calls are reported, as is a call whose argument is not evidently the app's type.
    @Test func ownMethodRuleNeverDropsADictionaryCall() {
        let result = scan([
            (
                "App.swift",
                """
                struct Config { let name: String }
                typealias Advertisement = [String: Any]
                final class A { func startAdvertising(_ data: Advertisement) {} }
                final class B { func startAdvertising(_ config: Config) {} }
                func go(b: B, data: Advertisement, unknown: Any) {
                    b.startAdvertising(Config(name: "x"))
                    manager.startAdvertising(data)
                    manager.startAdvertising([CBAdvertisementDataLocalNameKey: "Real"])
                    manager.startAdvertising(unknown)
                    manager.startAdvertising(nil)
                }
                """
            )
        ])
        #expect(result.calls.map(\.location.line) == [7, 8, 9, 10])
    }
}

@Suite struct ReassignmentTests {
    /// `var name = "Rower"` set again in an `if` without `else`: the `if` and the path past it.
    @Test func localVarReassignedInAnIfWithoutElse() {
        let result = scan([
            (
                "App.swift",
                """
                func go(pm5Mode: Bool) {
                    var name = "Rower"
                    if pm5Mode {
                        name = "PM5"
                    }
                    m.startAdvertising([CBAdvertisementDataLocalNameKey: name])
                }
                """
            )
        ])
        #expect(
            result.calls.map(\.variant) == ["if pm5Mode (App.swift:3)", "no branch of the if at App.swift:3 taken"]
        )
        #expect(result.calls.map(name) == ["PM5", "Rower"])
        #expect(result.allWarnings.isEmpty)
    }
}
