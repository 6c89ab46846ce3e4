import BLEInspectCore
import BLEInspectFilter
import Testing

/// A malformed filter, the columns its error must point at, and what the error must say.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let filter: String
    let range: Range<Int>
    /// Words the message must contain.
    let says: String
    let suggestion: String?

    init(_ filter: String, _ range: Range<Int>, says: String, suggestion: String? = nil) {
        self.filter = filter
        self.range = range
        self.says = says
        self.suggestion = suggestion
    }

    var testDescription: String { filter.count > 60 ? String(filter.prefix(60)) + "…" : filter }
}

let malformedCases: [MalformedCase] = [
    // Unknown fields, with the nearest name.
    MalformedCase("btat.opcode == 0x12", 0..<11, says: "neither a field nor a protocol", suggestion: "btatt.opcode"),
    MalformedCase("btatt && bthci_evt.bdaddr", 9..<25, says: "neither a field", suggestion: "bthci_evt.bd_addr"),
    MalformedCase("btatt.opcod == 1", 0..<11, says: "neither a field", suggestion: "btatt.opcode"),
    MalformedCase("BTATT.OPCODE == 1", 0..<12, says: "neither a field", suggestion: "btatt.opcode"),
    MalformedCase("btatt.value.len > 2", 0..<15, says: "neither a field", suggestion: "btatt.value"),
    MalformedCase("btl2cap.ppsm == 1", 0..<12, says: "neither a field", suggestion: "btl2cap.psm"),
    MalformedCase("zzzzzzzz", 0..<8, says: "neither a field"),
    MalformedCase(
        "btatt.handle == btatt.hadle",
        16..<27,
        says: "neither a field",
        suggestion: "btatt.handle"
    ),
    // Bad literals for the field's type.
    MalformedCase("btatt.opcode == \"Nope\"", 16..<22, says: "not a value of btatt.opcode"),
    MalformedCase("btatt.opcode == Write_Request", 16..<29, says: "\"Write Request\""),
    MalformedCase("btatt.opcode == 256", 16..<19, says: "too big"),
    MalformedCase("btatt.opcode == -1", 16..<18, says: "unsigned"),
    MalformedCase("bthci_evt.rssi == -200", 18..<22, says: "too small"),
    MalformedCase("btatt.opcode == 09", 16..<18, says: "not a value"),
    MalformedCase("bthci_evt.bd_addr == 0x12", 21..<25, says: "not a Bluetooth address"),
    MalformedCase("bthci_evt.bd_addr == 11:22:33:44:55", 21..<35, says: "not a Bluetooth address"),
    MalformedCase("btatt.value == 0x4154", 15..<21, says: "not a byte string"),
    MalformedCase("btatt.value == 415", 15..<18, says: "not a byte string"),
    MalformedCase("adv.uuid == 0x18f0f0f0f", 12..<23, says: "not a UUID"),
    MalformedCase("adv.uuid == 1234-5678", 12..<21, says: "not a UUID"),
    MalformedCase("btatt.opcode.command == maybe", 24..<29, says: "not a boolean"),
    MalformedCase("frame.time_epoch > yesterday", 19..<28, says: "not a time"),
    // Operators that do not fit the type.
    MalformedCase("btatt.opcode contains 01", 13..<21, says: "`contains` applies to"),
    MalformedCase("btatt.opcode matches \"x\"", 13..<20, says: "`matches` applies to"),
    MalformedCase("adv.uuid > 0x180f", 9..<10, says: "UUIDs can only be compared"),
    MalformedCase("btatt.value == btatt.opcode", 12..<14, says: "cannot be compared"),
    MalformedCase("btl2cap.command == 1", 16..<18, says: "no value to compare"),
    MalformedCase("btatt.opcode & 0x100", 15..<20, says: "wider than"),
    MalformedCase("btatt.opcode.command & 1", 21..<22, says: "`&` applies to integer fields and bytes"),
    MalformedCase("upper(btatt.value) == \"A\"", 6..<17, says: "upper() takes a string"),
    // Slices.
    MalformedCase("btatt.opcode[0] == 12", 0..<12, says: "cannot be sliced"),
    MalformedCase("btatt.value[0:0] == 01", 11..<16, says: "not positive"),
    MalformedCase("btatt.value[3-1] == 01", 11..<16, says: "ends (1) before it starts (3)"),
    MalformedCase("btatt.value[x] == 01", 11..<14, says: "not a byte offset"),
    MalformedCase("btatt.value[1:2,] == 01", 11..<17, says: "the slice is empty"),
    MalformedCase("btatt.value[0:2 == 01", 11..<12, says: "never closed"),
    MalformedCase("btatt.value[0][1] == 01", 14..<15, says: "sliced again"),
    // Syntax.
    MalformedCase("", 0..<1, says: "empty"),
    MalformedCase("   ", 0..<3, says: "empty"),
    MalformedCase("(btatt.opcode == 0x12", 0..<1, says: "never closed"),
    MalformedCase("btatt.opcode == 0x12)", 20..<21, says: "no matching `(`"),
    MalformedCase("(btatt || (btsmp)", 0..<1, says: "never closed"),
    MalformedCase("btatt &&", 6..<8, says: "needs an operand after it"),
    MalformedCase("btatt ||", 6..<8, says: "needs an operand after it"),
    MalformedCase("&& btatt", 0..<2, says: "needs an operand before it"),
    MalformedCase("btatt && || btsmp", 9..<11, says: "unexpected"),
    MalformedCase("!", 0..<1, says: "needs an operand after it"),
    MalformedCase("btatt.opcode ==", 13..<15, says: "needs a value after it"),
    MalformedCase("btatt.opcode == && btatt", 13..<15, says: "needs a value after it"),
    MalformedCase("btatt.opcode = 0x12", 13..<14, says: "use `==`"),
    MalformedCase("btatt | btsmp", 6..<7, says: "use `||`"),
    MalformedCase("btatt.opcode == 0x12 0x13", 21..<25, says: "unexpected"),
    MalformedCase("btatt.opcode # 1", 13..<14, says: "layer number right after it"),
    MalformedCase("btatt.opcode in {0x10 0x12}", 22..<26, says: "separated by commas"),
    MalformedCase("0x12 == btatt.opcode", 0..<4, says: "must be a field or function"),
    MalformedCase("btatt.handle + 1 in {2}", 17..<19, says: "not arithmetic"),
    MalformedCase("1 + 2 == 3", 0..<5, says: "constant arithmetic"),
    MalformedCase("max(btatt.handle, btatt.opcode) > 1", 18..<30, says: "must have the same type"),
    MalformedCase("btatt.value + 1 == 2", 12..<13, says: "`+` cannot be used with btatt.value"),
    MalformedCase("string(btatt.value) == \"a\"", 7..<18, says: "string() converts integers and addresses"),
    MalformedCase("count(btatt.handle)", 0..<19, says: "cannot be tested alone"),
    MalformedCase("btatt.handle -- 1", 14..<15, says: "unexpected"),
    MalformedCase("()", 0..<2, says: "empty parentheses"),
    MalformedCase("btatt.opcode in {}", 16..<18, says: "the set is empty"),
    MalformedCase("btatt.opcode in {1, 2", 16..<17, says: "never closed"),
    MalformedCase("btatt.opcode in 1", 16..<17, says: "expected `{`"),
    MalformedCase("btatt.opcode in {3..1}", 17..<21, says: "starts above its end"),
    MalformedCase("btatt.opcode in {1..}", 18..<20, says: "upper bound"),
    MalformedCase("btatt.opcode in {1,,2}", 19..<20, says: "missing"),
    MalformedCase("foo(btatt)", 0..<3, says: "unknown function"),
    // Refused as tshark 4.0 refuses them.
    MalformedCase("bthci_evt.rssi >= -128", 18..<22, says: "too small"),
    MalformedCase("btcommon.eir_ad.entry.device_name == \"Hue\\u0020Lamp\"", 41..<47, says: "universal character name"),
    MalformedCase("bthci_evt.bd_addr == \"40:22:46:1d:d1:f5\"", 21..<40, says: "write the address without quotes"),
    MalformedCase("btatt.value[0:2] in {20:30}", 0..<16, says: "only a field may be tested for membership"),
    MalformedCase("btatt.handle == 0o52", 16..<20, says: "not a number"),
    MalformedCase("btatt.opcode.command == -1", 24..<26, says: "without a sign"),
    MalformedCase("btcommon.eir_ad.entry.device_name matches Moto", 42..<46, says: "in double quotes"),
    MalformedCase("frame.time_delta >= 5.22971e-1", 20..<30, says: "has an exponent"),
    MalformedCase("len(btatt.value[0:2]) == 2", 4..<20, says: "len() takes a field"),
    MalformedCase("vals(btatt.opcode) == 1", 0..<4, says: "unknown function"),
    MalformedCase("len(btatt", 3..<4, says: "never closed"),
    MalformedCase("\"Hue\" && btatt", 0..<5, says: "is a value"),
    MalformedCase("btatt.opcode == 'ab'", 16..<20, says: "character constant"),
    // Strings and regular expressions.
    MalformedCase("btcommon.eir_ad.entry.device_name == \"Hue", 37..<41, says: "closing quote"),
    MalformedCase("btcommon.eir_ad.entry.device_name == \"a\\qb\"", 39..<41, says: "not a valid escape"),
    MalformedCase("btcommon.eir_ad.entry.device_name == \"\\x\"", 38..<40, says: "hex digits"),
    MalformedCase("btatt.value matches \"(ab\"", 20..<25, says: "invalid regular expression"),
    MalformedCase("btcommon.eir_ad.entry.device_name matches \"a{2,1}\"", 42..<50, says: "invalid regular expression"),
]

@Suite("errors")
struct ErrorTests {
    @Test(
        "malformed filters: a caret at the right columns, and a suggestion where one applies",
        arguments: malformedCases
    )
    func malformed(_ c: MalformedCase) throws {
        let error = try #require(FilterHarness.error(c.filter), "\(c.filter) compiled")
        #expect(error.range == c.range, "\(error.message)")
        #expect(error.message.contains(c.says), "\(error.message)")
        if let s = c.suggestion {
            #expect(error.suggestion == s)
        }
        // Rendering never traps and puts the caret under the range.
        let rendered = error.rendered(filter: c.filter)
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count >= 3)
        if lines.count >= 2 {
            #expect(
                lines[1].firstIndex(of: "^").map { lines[1].distance(from: lines[1].startIndex, to: $0) }
                    == c.range.lowerBound
            )
        }
    }

    @Test("the rendered error: filter, caret line, message, suggestion")
    func rendered() throws {
        let filter = "btat.opcode == 0x12 && btl2cap"
        let error = try #require(FilterHarness.error(filter))
        #expect(
            error.rendered(filter: filter) == """
                btat.opcode == 0x12 && btl2cap
                ^~~~~~~~~~~
                `btat.opcode` is neither a field nor a protocol name
                did you mean `btatt.opcode`?
                """
        )
        let value = try #require(FilterHarness.error("btatt.opcode == \"Nope\""))
        #expect(
            value.rendered(filter: "btatt.opcode == \"Nope\"").hasPrefix(
                "btatt.opcode == \"Nope\"\n                ^~~~~~\n"
            )
        )
        #expect(value.suggestion == nil)
        #expect(value.message.contains("value name such as"))
        // Control characters keep their column.
        let tab = try #require(FilterHarness.error("btatt\t&& nope"))
        #expect(tab.rendered(filter: "btatt\t&& nope").hasPrefix("btatt && nope\n         ^~~~\n"))
        #expect("\(tab)".contains("column 10"))
    }

    @Test("nesting 10,000 deep is a clean error at the first level past the limit")
    func depthLimit() throws {
        let limit = DisplayFilter.maximumNesting
        let parens = String(repeating: "(", count: 10_000) + "btatt" + String(repeating: ")", count: 10_000)
        let e1 = try #require(FilterHarness.error(parens))
        #expect(e1.range == limit..<limit + 1)
        #expect(e1.message.contains("\(limit)"))
        let nots = String(repeating: "!", count: 10_000) + "btatt"
        let e2 = try #require(FilterHarness.error(nots))
        #expect(e2.range == limit..<limit + 1)
        let words = String(repeating: "not ", count: 10_000) + "btatt"
        let e3 = try #require(FilterHarness.error(words))
        #expect(e3.range == 4 * limit..<4 * limit + 3)
        let mixed = String(repeating: "!(", count: 5_000) + "btatt" + String(repeating: ")", count: 5_000)
        let e4 = try #require(FilterHarness.error(mixed))
        #expect(e4.range == limit..<limit + 1)
        let unclosed = String(repeating: "(", count: 10_000)
        #expect(FilterHarness.error(unclosed)?.range == limit..<limit + 1)
        // Nesting up to the limit compiles and evaluates.
        let deepest = String(repeating: "(", count: limit) + "btatt" + String(repeating: ")", count: limit)
        let f = try FilterHarness.compile(deepest)
        #expect(f.matches(writeRequestTree().tree, frameBytes: writeRequestTree().bytes))
        let deepNots = String(repeating: "!", count: limit) + "btatt"
        let g = try FilterHarness.compile(deepNots)
        #expect(g.matches(writeRequestTree().tree, frameBytes: writeRequestTree().bytes))
        // Long flat chains are not nesting: 2,000 alternatives compile.
        let chain = (0..<2_000).map { "btatt.handle == \($0)" }.joined(separator: " || ")
        let h = try FilterHarness.compile(chain)
        #expect(h.matches(writeRequestTree().tree, frameBytes: writeRequestTree().bytes))
    }

    @Test("filters longer than 64 KiB are refused")
    func lengthLimit() throws {
        let long = "btatt || " + String(repeating: " ", count: DisplayFilter.maximumLength) + "btsmp"
        let error = try #require(FilterHarness.error(long))
        #expect(error.range.lowerBound == DisplayFilter.maximumLength)
        #expect(error.message.contains("longer"))
        // Just under the limit is fine.
        let fits = "btatt" + String(repeating: " ", count: DisplayFilter.maximumLength - 5)
        #expect(FilterHarness.error(fits) == nil)
    }

    @Test("the error's description gives the column and the suggestion")
    func description() throws {
        let error = try #require(FilterHarness.error("btat"))
        #expect("\(error)" == "column 1: `btat` is neither a field nor a protocol name; did you mean `btatt`?")
    }
}

/// Each kind of problem has its code, to compare without the message's words.
@Suite("error codes")
struct ErrorCodeTests {
    static let cases: [(String, FilterError.Code)] = [
        ("btatt.opcode = 1", .lexical),
        ("btatt.opcode == \"open", .lexical),
        ("(btatt", .syntax),
        ("btatt.opcode ==", .syntax),
        ("btat.opcode == 0x12", .unknownField),
        ("lenn(btatt.value) == 1", .unknownFunction),
        ("btatt.opcode == 0x1234567890", .value),
        ("btatt.handle contains 01", .usage),
        (String(repeating: "(", count: 300) + "btatt" + String(repeating: ")", count: 300), .limit),
    ]

    @Test("a filter's error has the code of its kind", arguments: 0..<cases.count)
    func code(_ index: Int) throws {
        let (filter, code) = Self.cases[index]
        let error = try #require(FilterHarness.error(filter), "\(filter) compiled")
        #expect(error.code == code, "\(filter): \(error.code) \(error.message)")
    }
}
