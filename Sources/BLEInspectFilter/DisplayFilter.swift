public import BLEInspectCore

/// A Wireshark-style display filter, compiled once against the registry's field catalog and
/// evaluated on each dissected frame without formatting anything.
///
/// The language is Wireshark 4.0's (docs/FILTERS.md lists it feature by feature):
///
/// - Presence: `btatt`, `btl2cap.psm`.
/// - Comparisons: `==` `!=` `===` `!==` (or `~=`) `<` `>` `<=` `>=`, also spelled `eq` `ne` `all_eq`
///   `any_ne` `lt` `gt` `le` `ge` (and `any_eq`, `all_ne`), optionally after `any` or `all`;
///   `contains`; `matches` (or `~`) with a regular expression; `in {…}` and `not in {…}` with
///   values separated by commas and ranges `a..b`.
/// - Logic: `&&`/`and`, `||`/`or` (`and` binds tighter), `!`/`not`, parentheses.
/// - Slices of bytes, strings, addresses and protocols: `[i:j]` (offset and length), `[i-j]` (first
///   and last offset), `[i]`, `[:j]`, `[i:]`, and lists of them (`[0:1,3]`); negative offsets
///   count from the end. An occurrence too short for the slice yields no value.
/// - Layers: `btatt.handle#2`, `btatt.handle#[1-2]`. Field references: `${btatt.handle}`, whose
///   values come from a reference frame (`settingReferences`).
/// - Arithmetic `+ - * / %`, unary minus, `{ }` grouping, `&` (`bitwise_and`); the functions
///   `len`, `count`, `upper`, `lower`, `string`, `max`, `min`, `abs`. Tests the specialised cases
///   of `Program` do not cover go to the general evaluator (`ValueProgram.swift`).
/// - Fields on both sides: `btatt.handle == btatt.handle_in_error`.
///
/// Literals are read by the type of the field they meet: integers in decimal, `0x` hex, `0`
/// or `0o` octal and `0b` binary, or by a value name in quotes (`btatt.opcode == "Write
/// Request"`, case-insensitive; a one-word name may go without quotes); reals (`double` fields)
/// as decimal numbers such as `23.45`, `-3`, `1e3` or `inf`, compared as IEEE doubles (`==` is
/// exact equality with the literal's nearest double, as in Wireshark; an integer field compared
/// with a real one compares exactly); booleans as `1`/`0`/
/// `True`/`False`; byte strings as `01:00`, `01-00`, `01.00` or `0100`, or text in quotes;
/// addresses as `aa:bb:cc:dd:ee:ff` or with `-`; UUIDs as `0x180f`, `0000180f` or the
/// 128-bit form with or without dashes (a 16-bit UUID equals its 128-bit form on the Bluetooth
/// base); strings in double quotes with C escapes (`\n`, `\x41`, `\101`, `\u00e9`), or raw as
/// `r"…"`, or a single unquoted word; characters as `'a'`; dates in quotes.
///
/// **Fields that occur more than once in a frame** follow Wireshark 4.x:
///
/// - `a == b`, `a < b` (and the other orderings), `contains`, `matches` and `in` hold when *any*
///   occurrence of `a` satisfies them.
/// - `a != b` means "all not equal": `a` occurs and *no* occurrence equals `b`. It is the same as
///   `!(a == b)` except that it is false when `a` does not occur at all (Wireshark's `all_ne`).
/// - `a ~= b` (or `a !== b`, `any_ne`) holds when any occurrence differs from `b`; `a === b`
///   (`all_eq`) when `a` occurs and every occurrence equals `b`.
/// - `a not in {…}` is `!(a in {…})`, so it is true when `a` does not occur.
/// - Every comparison is false when its field does not occur; occurrences that have no value for
///   the test (a slice past the end) are skipped, so `!=` and `===` hold vacuously for them.
/// - With fields on both sides, "any" means some pair of occurrences, "all" every pair.
///
/// `matches` is case-insensitive unless the pattern starts with `(?-i)`, as in Wireshark.
///
/// Evaluation reads only the fields the filter names: per frame, one pass over the tree's nodes
/// notes where each of those fields first and last occurs (in a small stack buffer), and the
/// tests compare raw `FieldValue`s with literals parsed at compile time. Integer, boolean,
/// address, UUID and presence tests allocate nothing.
public struct DisplayFilter: Sendable {
    /// The longest filter accepted, in UTF-8 bytes.
    public static let maximumLength = 65_536
    /// The deepest nesting of parentheses and `!` accepted.
    public static let maximumNesting = Parser.maximumNesting
    /// Whether `matches` ignores case unless the pattern says `(?-i)`; true as in Wireshark.
    static let regexIgnoresCaseByDefault = true

    /// The filter as written.
    public var text: String { compiled.text }
    /// The fields the filter reads (for renderers/engine to know what is needed).
    public var fieldsUsed: Set<FieldID> { Set(compiled.slotFields) }
    /// Whether the filter has field references (`${btatt.handle}`), which take their values from
    /// a reference frame (`settingReferences`).
    public var usesReferences: Bool { !compiled.references.isEmpty }

    /// Everything compiled, in one object: a filter is passed and copied for every frame, and one
    /// reference to count costs less than one per array.
    final class Compiled: Sendable {
        let text: String
        let program: Program
        /// The field of each slot.
        let slotFields: [FieldID]
        /// For each field id in the registry: its slot, or -1.
        let slotOfField: [Int32]
        /// What each `${…}` reads, and its values in the reference frame (empty until one is set).
        let references: [ReferenceRead]
        let referenceValues: [[Value]]

        init(
            text: String,
            program: Program,
            slotFields: [FieldID],
            slotOfField: [Int32],
            references: [ReferenceRead],
            referenceValues: [[Value]]
        ) {
            self.text = text
            self.program = program
            self.slotFields = slotFields
            self.slotOfField = slotOfField
            self.references = references
            self.referenceValues = referenceValues
        }

        func with(referenceValues values: [[Value]]) -> Compiled {
            Compiled(
                text: text,
                program: program,
                slotFields: slotFields,
                slotOfField: slotOfField,
                references: references,
                referenceValues: values
            )
        }
    }

    let compiled: Compiled

    /// Compiles `text` against the registry's fields. Throws FilterError with the offending range.
    public static func compile(_ text: String, registry: DissectorRegistry) throws(FilterError) -> DisplayFilter {
        if text.utf8.count > maximumLength {
            var column = 0
            var bytes = 0
            for c in text {
                bytes += c.utf8.count
                if bytes > maximumLength { break }
                column += 1
            }
            throw FilterError(
                .limit,
                "the filter is longer than \(maximumLength) bytes",
                at: column..<column + 1
            )
        }
        let chars = Array(text)
        let expression = try Parser.parse(chars)
        var compiler = Compiler(registry: registry, chars: chars)
        let program = try compiler.compile(expression)
        var table = [Int32](repeating: -1, count: registry.fields.count)
        for (slot, field) in compiler.slotFields.enumerated() where Int(field.rawValue) < table.count {
            table[Int(field.rawValue)] = Int32(slot)
        }
        return DisplayFilter(
            compiled: Compiled(
                text: text,
                program: program,
                slotFields: compiler.slotFields,
                slotOfField: table,
                references: compiler.references,
                referenceValues: Array(repeating: [], count: compiler.references.count)
            )
        )
    }

    /// Whether the dissected frame matches. `frameBytes` are the frame's own bytes (data source 0).
    public func matches(_ tree: borrowing ProtocolTree, frameBytes: [UInt8]) -> Bool {
        let compiled = compiled
        return withFrame(tree, frameBytes: frameBytes) { compiled.program.evaluate($0) }
    }

    /// The filter with its field references (`${…}`) taking their values from `tree`, the
    /// reference frame (Wireshark's selected frame; `read --ref-frame N`).
    public func settingReferences(_ tree: borrowing ProtocolTree, frameBytes: [UInt8]) -> DisplayFilter {
        let values = withFrame(tree, frameBytes: frameBytes) { frame in
            compiled.references.map { r in
                var values: [Value] = []
                frame.forEach(r.operand, r.layers) { i in if let v = frame.value(i, r.read) { values.append(v) } }
                return values
            }
        }
        return DisplayFilter(compiled: compiled.with(referenceValues: values))
    }

    /// The filter with the reference values `other` has (the same filter compiled elsewhere,
    /// for another thread).
    public func settingReferences(of other: DisplayFilter) -> DisplayFilter {
        guard other.compiled.referenceValues.count == compiled.referenceValues.count else { return self }
        return DisplayFilter(compiled: compiled.with(referenceValues: other.compiled.referenceValues))
    }

    /// Scans the tree once for the filter's fields and calls `body` with the frame as the
    /// evaluator sees it.
    private func withFrame<R>(_ tree: borrowing ProtocolTree, frameBytes: [UInt8], _ body: (FrameView) -> R) -> R {
        let sources = tree.sources
        let texts = tree.texts
        let compiled = compiled
        let slotCount = compiled.slotFields.count
        return tree.withNodes { nodeBuffer in
            compiled.referenceValues.withUnsafeBufferPointer { references in
                compiled.slotOfField.withUnsafeBufferPointer { table in
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(2, 2 * slotCount)) { marks in
                        marks.initialize(repeating: -1)
                        var i = 0
                        let count = nodeBuffer.count
                        let fields = table.count
                        while i < count {
                            let f = Int(nodeBuffer[i].field.rawValue)
                            if f < fields {
                                let s = Int(table[f])
                                if s >= 0 {
                                    if marks[2 &* s] < 0 { marks[2 &* s] = Int32(truncatingIfNeeded: i) }
                                    marks[2 &* s &+ 1] = Int32(truncatingIfNeeded: i)
                                }
                            }
                            i &+= 1
                        }
                        let frame = FrameView(
                            nodes: nodeBuffer,
                            marks: marks,
                            sources: sources,
                            texts: texts,
                            frameBytes: frameBytes,
                            references: references
                        )
                        return body(frame)
                    }
                }
            }
        }
    }
}
