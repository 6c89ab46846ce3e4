import BLECapture
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

@testable import BLECaptureIO
@testable import BLEInspectCLI
@testable import BLEInspectPipeline
@testable import BLEInspectRender
@testable import BLEInspectSession
@testable import BLEInspectViews

#if canImport(Glibc)
    import Glibc
#endif

/// Real fields (`FieldKind.real`) and units in every output: the tree, `-T fields`, JSON and
/// `bleinspect fields`, with the test module's manufacturer data (`TestRealModule`).
@Suite("real fields and units")
struct RealFieldTests {
    static let registry = TestRealModule.registry

    /// The output of `mode` for `frame`, dissected alone with the test registry.
    static func render(_ frame: CapturedFrame, _ mode: OutputMode) -> String {
        let renderer = FrameRenderer(
            registry: registry,
            mode: mode,
            style: ANSIStyle(enabled: false),
            timeFormat: .relative
        )
        var engine = DissectionEngine(registry: registry)
        var text = ""
        engine.dissect(frame, wantsInfo: renderer.wantsInfo) { tree in
            renderer.render(frame, tree, first: frame.timestamp, previous: frame.timestamp) {
                text = String(decoding: $0, as: UTF8.self)
            }
        }
        return text
    }

    /// The tree's lines, without their indentation.
    static func treeLines(_ frame: CapturedFrame) -> [String] {
        render(frame, .text(verbose: true, hexDump: false)).split(separator: "\n").map {
            String($0.drop { $0 == " " })
        }
    }

    /// `-T fields` of the test fields, one line.
    static func fields(_ frame: CapturedFrame) -> String {
        render(frame, .fields(["acme.temp", "acme.interval", "acme.mode", "acme.offset", "acme.raw"]))
    }

    /// The JSON object of `frame`.
    static func json(_ frame: CapturedFrame) throws -> [String: Any] {
        let line = render(frame, .json)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
        return object as? [String: Any] ?? [:]
    }

    /// The first value of `key` anywhere in a JSON object.
    static func find(_ key: String, in value: Any) -> Any? {
        if let object = value as? [String: Any] {
            if let v = object[key] { return v }
            for v in object.values {
                if let found = find(key, in: v) { return found }
            }
        } else if let array = value as? [Any] {
            for v in array {
                if let found = find(key, in: v) { return found }
            }
        }
        return nil
    }

    /// The `-T fields` text of one real value (`FieldFormatter.fieldText`).
    static func text(_ v: Double) -> String {
        var tree = ProtocolTree()
        tree.add(FieldID(0), .real(v), 0..<0)
        let d = FieldDescriptor("test.real", "Real", .real)
        return FieldFormatter(registry: registry).fieldText(tree.nodes[0], d, texts: []) { [] }
    }

    /// What C's `%.15g` prints (tshark's format for doubles), with the names of NaN and the
    /// infinities this program uses.
    static func reference(_ v: Double) -> String { Reference.real(v) }

    @Test("the tree shows a real with its unit, and integers with units, escaped")
    func treeLabels() {
        let lines = Self.treeLines(TestRealModule.advert())
        #expect(lines.contains("Acme Sensor"))
        #expect(lines.contains("Temperature: 23.45 °C"))
        #expect(lines.contains("Interval: 500 ms"))
        // A value shown by its name has no unit.
        #expect(lines.contains("Mode: On (1)"))
        #expect(lines.contains("Offset: -3 dB"))
        // The unit's ESC is escaped: no raw control character reaches the terminal.
        #expect(lines.contains("Raw Reading: 1013.2 \\x1B[31mU"))
        #expect(!lines.joined().contains("\u{1B}"))
        // A value without a name gets the unit.
        #expect(Self.treeLines(TestRealModule.advert(mode: 7)).contains("Mode: 7 level"))
    }

    @Test("negative values, whole numbers, NaN and the infinities in the tree")
    func treeSpecialValues() {
        let cold = Self.treeLines(TestRealModule.advert(temperature: -1050, raw: -0.0))
        #expect(cold.contains("Temperature: -10.5 °C"))
        #expect(cold.contains("Raw Reading: -0 \\x1B[31mU"))
        let whole = Self.treeLines(TestRealModule.advert(temperature: 2100, raw: 1e20))
        #expect(whole.contains("Temperature: 21 °C"))
        #expect(whole.contains("Raw Reading: 1e+20 \\x1B[31mU"))
        #expect(Self.treeLines(TestRealModule.advert(raw: .nan)).contains("Raw Reading: NaN \\x1B[31mU"))
        #expect(Self.treeLines(TestRealModule.advert(raw: .infinity)).contains("Raw Reading: inf \\x1B[31mU"))
        #expect(Self.treeLines(TestRealModule.advert(raw: -.infinity)).contains("Raw Reading: -inf \\x1B[31mU"))
    }

    @Test("-T fields prints the number only, without the unit")
    func fieldsOutput() {
        #expect(Self.fields(TestRealModule.advert()) == "23.45\t500\t1\t-3\t1013.2\n")
        #expect(
            Self.fields(TestRealModule.advert(temperature: -3, interval: 0, mode: 0, offset: 4, raw: .nan))
                == "-0.03\t0\t0\t4\tNaN\n"
        )
        #expect(Self.fields(TestRealModule.advert(raw: 0.00001)) == "23.45\t500\t1\t-3\t1e-05\n")
    }

    @Test("JSON has reals as numbers, no units, and NaN and the infinities as strings")
    func jsonOutput() throws {
        let object = try Self.json(TestRealModule.advert())
        #expect((Self.find("acme.temp", in: object) as? NSNumber)?.doubleValue == 23.45)
        #expect((Self.find("acme.raw", in: object) as? NSNumber)?.doubleValue == 1013.2)
        #expect((Self.find("acme.interval", in: object) as? NSNumber)?.intValue == 500)
        #expect((Self.find("acme.offset", in: object) as? NSNumber)?.intValue == -3)
        let line = Self.render(TestRealModule.advert(), .json)
        #expect(line.contains("\"acme.temp\":23.45,"))
        #expect(!line.contains("°C") && !line.contains("ms\"") && !line.contains("[31mU"))

        let negative = try Self.json(TestRealModule.advert(temperature: -1050, raw: -2.5e-7))
        #expect((Self.find("acme.temp", in: negative) as? NSNumber)?.doubleValue == -10.5)
        #expect((Self.find("acme.raw", in: negative) as? NSNumber)?.doubleValue == -2.5e-7)
        for (raw, text) in [(Double.nan, "NaN"), (.infinity, "inf"), (-.infinity, "-inf")] {
            let special = try Self.json(TestRealModule.advert(raw: raw))
            #expect(Self.find("acme.raw", in: special) as? String == text)
            #expect((Self.find("acme.temp", in: special) as? NSNumber)?.doubleValue == 23.45)
        }
    }

    @Test("reals are shown like tshark's %.15g, with the names of NaN and the infinities")
    func numberFormat() {
        let cases: [(Double, String)] = [
            (23.45, "23.45"), (21, "21"), (1013.2, "1013.2"), (0.0001, "0.0001"), (0.00001, "1e-05"),
            (0.5, "0.5"), (100, "100"), (-3, "-3"), (-0.0, "-0"), (0, "0"), (0.1 + 0.2, "0.3"),
            (1.0 / 3, "0.333333333333333"), (2.0 / 3, "0.666666666666667"), (1e15, "1e+15"),
            (999_999_999_999_999, "999999999999999"), (999_999_999_999_999.9, "1e+15"),
            (123_456_789_012_345.6, "123456789012346"), (1e14, "100000000000000"), (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"), (-2.5e-300, "-2.5e-300"), (Double.greatestFiniteMagnitude, "1.79769313486232e+308"),
            (Double.leastNonzeroMagnitude, "4.94065645841247e-324"), (0.1234567890123455, "0.123456789012345"),
            (.nan, "NaN"), (.infinity, "inf"), (-.infinity, "-inf"),
        ]
        for (v, expected) in cases {
            #expect(Self.text(v) == expected, "\(v)")
            #expect(Self.reference(v) == expected, "\(v)")
        }
    }

    @Test("the number format agrees with C's %.15g on many values, ties included")
    func numberFormatAgreesWithC() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var values: [Double] = []
        for _ in 0..<20_000 {
            // Any bit pattern (subnormals, huge, tiny), ordinary magnitudes, and 16-digit decimals
            // ending in 5, whose shortest digits can be the rounding midpoint itself.
            values.append(Double(bitPattern: next()))
            values.append(Double(Int64(bitPattern: next()) >> 20) / Double(1 << (next() % 40)))
            let digits = String(1_000_000_000_000_000 + next() % 9_000_000_000_000_000 / 10 * 10 + 5)
            let exponent = Int(next() % 60) - 30
            values.append(Double("\(digits.prefix(1)).\(digits.dropFirst())e\(exponent)") ?? 0)
            values.append(Double(next() % 2_000_000) / 100 - 10_000)
        }
        var mismatches: [String] = []
        for v in values where Self.text(v) != Self.reference(v) {
            mismatches.append("\(v): \(Self.text(v)) vs \(Self.reference(v))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("labels from FieldFormatter carry the escaped unit; values with names do not")
    func formatterLabels() {
        let formatter = FieldFormatter(registry: Self.registry)
        var tree = ProtocolTree()
        tree.add(FieldID(0), .real(-7.25), 0..<0)
        tree.add(FieldID(0), .unsigned(1), 0..<0)
        tree.add(FieldID(0), .unsigned(2), 0..<0)
        let nodes = tree.nodes
        let real = FieldDescriptor("t.real", "Level", .real, unit: "\u{1B}]0;x\u{07}%")
        #expect(formatter.label(nodes[0], real, texts: []) { [] } == "Level: -7.25 \\x1B]0;x\\x07%")
        #expect(formatter.valueText(nodes[0], real, texts: []) { [] } == "-7.25")
        #expect(formatter.fieldText(nodes[0], real, texts: []) { [] } == "-7.25")
        let named = FieldDescriptor("t.n", "Named", .unsigned(bits: 8), names: ValueNames([(1, "One")]), unit: "ms")
        #expect(formatter.label(nodes[1], named, texts: []) { [] } == "Named: One (1)")
        #expect(formatter.label(nodes[2], named, texts: []) { [] } == "Named: 2 ms")
        let hex = FieldDescriptor("t.h", "Hex", .unsigned(bits: 16), base: .hex, unit: "ms")
        #expect(formatter.label(nodes[2], hex, texts: []) { [] } == "Hex: 0x0002 ms")
        // Units are for numbers: a boolean field's unit is not shown.
        let flag = FieldDescriptor("t.b", "Flag", .boolean, unit: "ms")
        #expect(formatter.label(nodes[1], flag, texts: []) { [] } == "Flag: True")
    }

    @Test("the kind's type name is double; bleinspect fields shows the unit, escaped")
    func fieldsListing() {
        #expect(FieldKind.real.typeName == "double")
        let text = BLEInspectCLI.Fields.listing(Self.registry, prefix: "acme", markdown: false)
        let listing = text.split(separator: "\n")
        #expect(listing.contains("acme.temp\tdouble\tTemperature\t(unit: °C)"))
        #expect(listing.contains("acme.interval\tuint16\tInterval\t(unit: ms)"))
        #expect(listing.contains("acme.offset\tint8\tOffset\tSigned trim (unit: dB)"))
        #expect(listing.contains("acme.raw\tdouble\tRaw Reading\t(unit: \\x1B[31mU)"))
        let markdown = BLEInspectCLI.Fields.listing(Self.registry, prefix: "acme.temp", markdown: true)
        #expect(markdown.contains("| `acme.temp` | double | Temperature | (unit: °C) |"))
        #expect(!BLEInspectCLI.Fields.listing(Self.registry, prefix: nil, markdown: false).contains("\u{1B}"))
    }
}
