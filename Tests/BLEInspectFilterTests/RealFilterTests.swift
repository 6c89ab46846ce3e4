import BLECapture
import BLEInspectCore
import BLEInspectFilter
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import Testing

/// Display filters on real fields (`FieldKind.real`), with the test module's fields
/// (`TestRealModule`: `acme.temp` and `acme.raw` are doubles, `acme.interval` a uint16,
/// `acme.offset` an int8).
@Suite("filters on real fields")
struct RealFilterTests {
    static let registry = TestRealModule.registry

    static func compile(_ text: String) throws(FilterError) -> DisplayFilter {
        try FilterHarness.compile(text, registry: registry)
    }

    /// The error `text` gives, or nil when it compiles.
    static func error(_ text: String) -> FilterError? { FilterHarness.error(text, registry: registry) }

    /// Whether `filter` matches `frame`, dissected alone with the test registry.
    static func matches(_ filter: String, _ frame: CapturedFrame, sourceLocation: SourceLocation = #_sourceLocation)
        -> Bool
    {
        do {
            let f = try compile(filter)
            var engine = DissectionEngine(registry: registry)
            return engine.dissect(frame, wantsInfo: false) { f.matches($0, frameBytes: frame.bytes) }
        } catch {
            Issue.record("\(filter) does not compile: \(error)", sourceLocation: sourceLocation)
            return false
        }
    }

    /// Expects each filter of `yes` to match `frame` and each of `no` not to.
    static func expect(
        _ frame: CapturedFrame,
        _ yes: [String],
        not no: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for f in yes {
            #expect(
                matches(f, frame, sourceLocation: sourceLocation),
                "\(f) should match",
                sourceLocation: sourceLocation
            )
        }
        for f in no {
            #expect(
                !matches(f, frame, sourceLocation: sourceLocation),
                "\(f) should not match",
                sourceLocation: sourceLocation
            )
        }
    }

    /// A hand-made tree of the test fields, each `(name, value)` one node.
    static func tree(_ nodes: [(String, FieldValue)]) -> ProtocolTree {
        var tree = ProtocolTree()
        for (name, value) in nodes {
            guard let id = registry.field(named: name) else {
                Issue.record("no field \(name)")
                continue
            }
            tree.add(id, value, 0..<0)
        }
        return tree
    }

    static func matches(_ filter: String, _ nodes: [(String, FieldValue)]) -> Bool {
        do {
            return try compile(filter).matches(tree(nodes), frameBytes: [])
        } catch {
            Issue.record("\(filter) does not compile: \(error)")
            return false
        }
    }

    @Test("every comparison operator, `in` and presence on a dissected real field")
    func operators() {
        // acme.temp 23.45, acme.interval 500, acme.offset -3, acme.raw 1013.2.
        Self.expect(
            TestRealModule.advert(),
            [
                "acme.temp", "acme.temp > 23", "acme.temp > 23.4", "acme.temp == 23.45", "acme.temp eq 23.45",
                "acme.temp < 25.5", "acme.temp >= 23.45", "acme.temp <= 23.45", "acme.temp != 23.4",
                "acme.temp ~= 0", "acme.temp === 23.45", "acme.temp in {20..25.5}", "acme.temp in {1, 23.45}",
                "acme.temp not in {24..30}", "acme.temp > -3", "acme.temp == 2.345e1", "acme.temp == \"23.45\"",
                "acme.temp < inf", "acme.temp > -inf", "acme.temp > 23", "acme.temp < 25.5", "acme.raw >= 1e3",
                "acme.raw >= 1e+3", "acme.raw >= 1e+3", "acme.raw < 1E+4", "acme.raw == 1013.2",
                "acme.temp in {-1e3..1e3}", "acme.temp && acme.interval == 500", "count(acme.temp) == 1",
                "acme.temp >= .5",
            ],
            not: [
                "acme.temp > 25.5", "acme.temp == 23.4", "acme.temp == 23", "acme.temp < -3",
                "acme.temp in {24..30}", "acme.temp != 23.45", "acme.raw < 1e3", "acme.temp not in {23..24}",
                "!acme.temp", "acme.temp > inf", "acme.temp === 1",
            ]
        )
        Self.expect(
            TestRealModule.advert(temperature: -1050),
            ["acme.temp < -3", "acme.temp == -10.5", "acme.temp in {-20..-10}", "acme.temp < 0"],
            not: ["acme.temp >= -10", "acme.temp > 0", "acme.temp == 10.5"]
        )
        // A frame without the field: every comparison is false, presence too.
        let reset = Dissect.hci(.hciCommand, "03 0C 00")
        Self.expect(
            reset,
            ["!acme.temp", "acme.temp not in {0..1}"],
            not: ["acme.temp", "acme.temp != 1", "acme.temp < 1e300", "acme.temp in {-inf..inf}"]
        )
    }

    @Test("integer literals and integer fields compare with reals numerically, exactly")
    func integers() {
        Self.expect(
            TestRealModule.advert(raw: 16),
            [
                "acme.raw == 16", "acme.raw == 0x10", "acme.raw == 0b10000", "acme.raw == 16.0",
                "acme.raw == 1.6e1", "acme.raw in {16}", "acme.raw == '\\x10'",
            ],
            not: ["acme.raw == 15", "acme.raw == 0x11"]
        )
        // Field against field: a real and an integer, either way round.
        Self.expect(
            TestRealModule.advert(temperature: -250, interval: 500, offset: -3),
            [
                "acme.temp > acme.offset", "acme.offset < acme.temp", "acme.interval > acme.temp",
                "acme.temp == acme.temp", "acme.temp != acme.interval", "acme.temp < acme.raw",
            ],
            not: ["acme.temp < acme.offset", "acme.temp == acme.offset", "acme.temp > acme.raw"]
        )
        #expect(Self.matches("acme.temp == acme.offset", [("acme.temp", .real(-3)), ("acme.offset", .signed(-3))]))
        #expect(Self.matches("acme.temp < acme.offset", [("acme.temp", .real(-3.5)), ("acme.offset", .signed(-3))]))
        // 2^64 as a double is above UInt64.max: no rounding of the integer to a double.
        let big: [(String, FieldValue)] = [
            ("acme.temp", .real(18_446_744_073_709_551_616.0)), ("acme.interval", .unsigned(.max)),
        ]
        #expect(Self.matches("acme.temp > acme.interval", big))
        #expect(!Self.matches("acme.temp == acme.interval", big))
        #expect(Self.matches("acme.interval < acme.temp", big))
        let negative: [(String, FieldValue)] = [("acme.temp", .real(-0.5)), ("acme.offset", .signed(-1))]
        #expect(Self.matches("acme.temp > acme.offset", negative))
        #expect(Self.matches("acme.offset <= acme.temp", negative))
    }

    @Test("NaN equals nothing and orders with nothing; the infinities compare")
    func specialValues() {
        Self.expect(
            TestRealModule.advert(raw: .nan),
            ["acme.raw", "acme.raw != 0", "acme.raw ~= 1013.2", "acme.raw != acme.temp"],
            not: [
                "acme.raw == 0", "acme.raw > 0", "acme.raw < 0", "acme.raw >= -inf", "acme.raw in {-inf..inf}",
                "acme.raw == acme.raw", "acme.raw > acme.offset", "acme.raw < acme.offset",
            ]
        )
        #expect(Self.matches("acme.raw != acme.offset", [("acme.raw", .real(.nan)), ("acme.offset", .signed(0))]))
        Self.expect(
            TestRealModule.advert(raw: .infinity),
            ["acme.raw == inf", "acme.raw == Infinity", "acme.raw > 1e308", "acme.raw > acme.interval"],
            not: ["acme.raw < 1e308", "acme.raw == -inf"]
        )
        Self.expect(
            TestRealModule.advert(raw: -.infinity),
            ["acme.raw == -inf", "acme.raw < -1e308", "acme.raw in {-inf..0}"],
            not: ["acme.raw > -1e308"]
        )
        Self.expect(TestRealModule.advert(raw: -0.0), ["acme.raw == 0", "acme.raw == -0"], not: ["acme.raw < 0"])
    }

    @Test("several occurrences follow Wireshark's any/all rules")
    func occurrences() {
        let two: [(String, FieldValue)] = [("acme.temp", .real(20.5)), ("acme.temp", .real(30.5))]
        #expect(Self.matches("acme.temp == 30.5", two))
        #expect(!Self.matches("acme.temp != 30.5", two))
        #expect(Self.matches("acme.temp ~= 30.5", two))
        #expect(!Self.matches("acme.temp === 30.5", two))
        #expect(Self.matches("acme.temp > 25 && acme.temp < 21", two))
        #expect(Self.matches("acme.temp in {30..31}", two))
        #expect(!Self.matches("acme.temp not in {30..31}", two))
        #expect(Self.matches("count(acme.temp) == 2", two))
    }

    @Test("literals that are not numbers, and operators reals do not have, are errors")
    func errors() {
        func expectError(
            _ filter: String,
            _ fragments: [String],
            at columns: Range<Int>? = nil,
            suggestion: String? = nil,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            guard let e = Self.error(filter) else {
                Issue.record("\(filter) compiles", sourceLocation: sourceLocation)
                return
            }
            for fragment in fragments {
                #expect(e.message.contains(fragment), "\(filter): \(e.message)", sourceLocation: sourceLocation)
            }
            if let columns { #expect(e.range == columns, "\(filter): \(e.range)", sourceLocation: sourceLocation) }
            if let suggestion { #expect(e.suggestion == suggestion, sourceLocation: sourceLocation) }
        }
        expectError(
            "acme.temp == warm",
            ["warm is not a number", "acme.temp (double) takes decimal numbers such as 23.45"],
            at: 13..<17
        )
        expectError("acme.temp > 01:02", ["01:02 is not a number"], at: 12..<17)
        expectError("acme.temp in {20..hot}", ["hot is not a number"], at: 18..<21)
        expectError("acme.temp == \"x\"", ["\"x\" is not a number"], at: 13..<16)
        expectError("acme.temp > 1e999", ["1e999 is too big for acme.temp", "write inf"], at: 12..<17)
        expectError("acme.temp < 1e-999", ["1e-999 is too small for acme.temp", "read as 0"], at: 12..<18)
        expectError("acme.temp == nan", ["NaN equals nothing"], at: 13..<16)
        expectError("acme.temp in {30..20}", ["the range starts above its end"], at: 14..<20)
        expectError("acme.temp & 1", ["`&` applies to integer fields and bytes; acme.temp is a double"], at: 10..<11)
        expectError("acme.temp & 1 == 1", ["`&` applies to integer fields and bytes"])
        expectError("acme.temp contains 01", ["`contains` applies to", "acme.temp is a double"])
        expectError("acme.temp matches \"2\"", ["`matches` applies to", "acme.temp is a double"])
        expectError("acme.temp[0:1] == 01", ["acme.temp is a double and cannot be sliced"])
        // A value on the left of a comparison is refused, as in Wireshark.
        expectError("23 < acme.temp", ["the left side of `<` must be a field or function, not 23"], at: 0..<2)
        expectError(
            "acme.temp == bthci_evt.bd_addr",
            ["acme.temp (double) cannot be compared with bthci_evt.bd_addr (bdaddr)"]
        )
        expectError("acme.temp == acme.tmep", ["acme.tmep"], suggestion: "acme.temp")
        expectError("acme.temp == 1 +", ["`+` needs an operand after it"], at: 15..<16)
        // An integer field still takes integers only.
        expectError("acme.interval == 2.5", ["2.5 is not a number; acme.interval (uint16)"])
        // Both the integer and the real literal forms compile.
        for ok in ["acme.temp == 0x1p-2", "acme.temp == 0b1111", "acme.temp == -.5", "acme.temp == -1E-3"] {
            #expect(Self.error(ok) == nil, "\(ok): \(Self.error(ok).map(\.message) ?? "")")
        }
    }
}
