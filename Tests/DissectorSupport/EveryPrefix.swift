public import BLEInspectCore
public import Testing

/// How a decoded frame is marked: what an every-prefix sweep asserts for each cut.
public enum FrameMark: Sendable, Hashable, CustomStringConvertible {
    /// No malformed note and no warning.
    case clean
    /// Only warnings (expert notes of warning severity or worse that are not malformed notes).
    case warning
    /// Malformed notes, all for `DecodeError.Code.truncated` ("Malformed: packet too short: …").
    case truncated
    /// A malformed note for another reason (`DecodeError.Code.malformed`), with or without
    /// truncated ones.
    case malformed
    /// A limit of the program was reached (`DecodeError.Code.limitExceeded`), and nothing malformed.
    case limitExceeded

    public var description: String {
        switch self {
        case .clean: "clean"
        case .warning: "a warning"
        case .truncated: "truncated"
        case .malformed: "malformed"
        case .limitExceeded: "limit reached"
        }
    }
}

extension FrameSnapshot {
    /// The messages of the frame's malformed notes (`_ws.malformed`), in tree order.
    public var malformedNotes: [String] {
        guard let id = registry.field(named: "_ws.malformed") else { return [] }
        return nodes.compactMap { node -> String? in
            if node.field == id, case .expert(_, let r) = node.value { return text(r) }
            return nil
        }
    }

    /// The code of each malformed note, read back from the text `DissectionContext.malformed`
    /// gives it: "Malformed: packet too short: …" for `.truncated`, "Limit reached: …" for
    /// `.limitExceeded`, any other "Malformed: …" for `.malformed`.
    public var malformedCodes: [DecodeError.Code] {
        malformedNotes.map { note in
            if note.hasPrefix("Malformed: packet too short") { return .truncated }
            if note.hasPrefix("Limit reached") { return .limitExceeded }
            return .malformed
        }
    }

    /// True when some layer was marked truncated ("packet too short"), whatever else it has.
    public var isTruncated: Bool { malformedCodes.contains(.truncated) }

    /// How the frame is marked: a malformed reason other than truncation wins over truncation,
    /// which wins over a reached limit; without malformed notes, a warning or clean.
    public var mark: FrameMark {
        let codes = malformedCodes
        if codes.contains(.malformed) { return .malformed }
        if codes.contains(.truncated) { return .truncated }
        if codes.contains(.limitExceeded) { return .limitExceeded }
        return warnings.isEmpty ? .clean : .warning
    }
}

/// Decodes every prefix of `bytes` (cuts `0..<bytes.count`, or `cuts`), then the whole, and
/// optionally the whole with `appended` bytes past its end, as swift-asn1's every-prefix tests do.
/// Nothing may trap, every tree must close all the nodes it opened, and:
/// - each cut is marked `.truncated` ("packet too short", not some other malformed reason), unless
///   it is in `clean` (a PDU legitimately ending there, say on a structure boundary) or `marks`
///   gives it another expected mark;
/// - the whole is marked `whole` (by default it decodes clean);
/// - bytes appended past the end are marked `appendedMark` (by default malformed, not truncated).
///
/// A failure names `label`, the cut length and the mark and notes seen. Returns the snapshots by
/// the length decoded (the whole at `bytes.count`), for further checks.
@discardableResult
public func expectEveryPrefix(
    of bytes: [UInt8],
    _ label: String = "",
    cuts: Range<Int>? = nil,
    clean: Set<Int> = [],
    marks: [Int: FrameMark] = [:],
    whole: FrameMark = .clean,
    appended: [UInt8]? = nil,
    appendedMark: FrameMark = .malformed,
    sourceLocation: SourceLocation = #_sourceLocation,
    decode: ([UInt8]) -> FrameSnapshot
) -> [Int: FrameSnapshot] {
    var seen: [Int: FrameSnapshot] = [:]
    func check(_ input: [UInt8], _ expected: FrameMark, _ what: String) {
        let s = decode(input)
        seen[input.count] = s
        let name = label.isEmpty ? what : "\(label): \(what)"
        if s.mark != expected {
            let notes = s.mark == .warning || s.mark == .clean ? s.warnings : s.malformedNotes
            Issue.record(
                "\(name) is \(s.mark), expected \(expected); notes: \(notes)",
                sourceLocation: sourceLocation
            )
        }
        if s.openDepth != 0 {
            Issue.record("\(name) left \(s.openDepth) nodes open", sourceLocation: sourceLocation)
        }
    }
    for n in cuts ?? 0..<bytes.count {
        let expected = marks[n] ?? (clean.contains(n) ? .clean : .truncated)
        check(Array(bytes.prefix(n)), expected, "cut to \(n) of \(bytes.count) bytes")
    }
    check(bytes, whole, "the whole (\(bytes.count) bytes)")
    if let appended {
        check(bytes + appended, appendedMark, "\(appended.count) bytes past the whole")
    }
    return seen
}
