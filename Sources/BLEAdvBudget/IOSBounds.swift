import BLEInspectCore

/// The iOS checks of a source advert whose values the sources do not all fix (§2.5, §2.6).
///
/// An unknown service UUID can be 16, 32 or 128 bits wide; the placement algorithm is run once
/// per combination of widths (up to `maximumEnumerated` unknown UUIDs), and the verdicts are what
/// holds in every combination. An unknown name, or one known only by its literal prefix and
/// suffix, is at least that long and has no upper bound; whether it is cut follows from the
/// bytes left after the UUIDs in each combination. A UUID array of unknown length leaves 0 to 28
/// bytes. The layout shown is one case, labelled on its own line as a partial layout; the
/// findings never come from that case alone.
enum IOSBounds {
    /// More unknown UUIDs than this are treated like an array of unknown length.
    static let maximumEnumerated = 5
    /// The widths an unknown CBUUID can have on air.
    static let widths = [2, 4, 16]

    /// Rules whose findings in the representative case depend on the unknown values; they are
    /// replaced by the verdicts.
    static let caseRules: Set<String> = [
        Rules.iosNameTruncated.id, Rules.iosNameScanResponse.id, Rules.iosNameUTF8Split.id, Rules.iosUUIDOverflow.id,
        Rules.iosUUIDPlacementUncertain.id, Rules.iosUUIDListTypeUncertain.id, Rules.iosUUIDMixedWidths.id,
        Rules.iosOverflowCollision.id, Rules.iosBackgroundOverflow.id, Rules.adUUIDListDuplicate.id,
    ]

    // MARK: Cases

    /// One combination of widths for the unknown UUIDs.
    struct Case {
        /// The width of each unknown UUID, in array order.
        var widths: [Int]
        /// The UUIDs with placeholders of those widths.
        var uuids: [BluetoothUUID]
    }

    /// A placeholder of `width` bytes for the `n`th unknown UUID; its bytes are shown as `??`.
    static func placeholder(width: Int, n: Int) -> BluetoothUUID {
        switch width {
        case 2: BluetoothUUID(uuid16: UInt16(truncatingIfNeeded: 0xFF00 &+ n))
        case 4: BluetoothUUID(uuid32: 0xFFFF_FF00 &+ UInt32(truncatingIfNeeded: n))
        default: BluetoothUUID(high: 0xFFFF_FFFF_FFFF_FFFF, low: 0xFFFF_FFFF_FFFF_FF00 &+ UInt64(n), width: 16)
        }
    }

    /// Every combination, or nil when the array's length is unknown or too many UUIDs are.
    static func cases(_ plan: AdvertPlan) -> [Case]? {
        guard plan.unknown.uuidList == nil else { return nil }
        let slots = plan.unknown.uuids ?? plan.data.serviceUUIDs.map { .known($0) }
        let unknownCount = plan.unknown.unknownUUIDs.count
        guard unknownCount <= maximumEnumerated else { return nil }
        var combinations: [[Int]] = [[]]
        for _ in 0..<unknownCount {
            combinations = combinations.flatMap { prefix in widths.map { prefix + [$0] } }
        }
        return combinations.map { combination in
            var n = 0
            let uuids = slots.map { slot -> BluetoothUUID in
                switch slot {
                case .known(let uuid): return uuid
                case .unknown:
                    defer { n += 1 }
                    return placeholder(width: combination[n], n: n)
                }
            }
            return Case(widths: combination, uuids: uuids)
        }
    }

    /// "`service.uuid` is 16-bit" (one unknown), "`a`, `b` are 16-, 128-bit".
    static func caseText(_ plan: AdvertPlan, _ c: Case) -> String {
        let names = plan.unknown.unknownUUIDs.map { Quote.code($0) }
        let bits = c.widths.map { "\($0 * 8)" }
        if names.count == 1 { return "\(names[0]) is \(bits[0])-bit" }
        return names.joined(separator: ", ") + " are " + bits.joined(separator: "-, ") + "-bit"
    }

    /// The plan of one case: placeholders for the unknown UUIDs, and `name`.
    static func concrete(_ plan: AdvertPlan, uuids: [BluetoothUUID], name: String?) -> AdvertPlan {
        var p = plan
        p.data.serviceUUIDs = uuids
        p.data.localName = name
        p.unknown = UnknownParts()
        return p
    }

    // MARK: Foreground

    static func foreground(_ plan: AdvertPlan, options: CheckOptions) -> AdvertResult {
        if let dictionary = plan.unknown.dictionary { return unknownDictionary(plan, dictionary, .iosForeground) }
        if plan.iBeacon != nil {
            return beacon(IOSProfile.foreground(concrete(plan, uuids: [], name: nil), options: options), plan)
        }
        let cases = cases(plan)
        // Bytes left for the name after the UUIDs, per case; 0...28 when the array is unknown.
        var left: [Int] = []
        var placements: [[UUIDPlacement.Place]] = []
        for c in cases ?? [] {
            let r = IOSProfile.foreground(concrete(plan, uuids: c.uuids, name: nil), options: options)
            left.append(IOSProfile.capacity - r.advertisingData.used)
            placements.append(r.uuids.map(\.place))
        }
        let range = left.isEmpty ? 0...(IOSProfile.capacity - 3) : (left.min() ?? 0)...(left.max() ?? 0)
        var findings = IOSProfile.commonFindings(plan)
        let nameBounds = name(plan, left: left, range: range, cases: cases ?? [], findings: &findings)
        let representative = representativeCase(plan, cases: cases)
        var r = IOSProfile.foreground(
            concrete(plan, uuids: representative.uuids, name: representativeName(plan)),
            options: options
        )
        r.findings = r.findings.filter { !caseRules.contains($0.rule) && !commonRules.contains($0.rule) }
        findings += r.findings
        findings += uuidVerdicts(plan, placements: placements, cases: cases ?? [], into: &r)
        r.findings = findings
        r.name = r.name.map { outcome in
            var o = outcome
            if let unknownName = plan.unknown.name { o.requested = unknownName.prefix + unknownName.suffix }
            o.bounds = nameBounds
            if (cases?.count ?? 0) != 1 || plan.unknown.name != nil {
                // The bytes on air differ between cases: the bounds say what holds.
                o.onAir = nil
                o.type = nil
                o.placement = nil
            }
            return o
        }
        if r.name == nil, let bounds = nameBounds {
            r.name = NameOutcome(requested: "", onAir: nil, type: nil, placement: nil, bounds: bounds)
        }
        markPartial(&r, plan, label: representative.label)
        return r
    }

    /// Rules `IOSProfile.commonFindings` reports; taken once from the plan, not from the case.
    static let commonRules: Set<String> = [
        Rules.iosKeyDropped.id, Rules.iosFlagsFixed.id, Rules.iosConnectableFixed.id,
    ]

    /// The case shown: every unknown UUID 16-bit (the case that leaves the name the most room),
    /// an array of unknown length empty.
    static func representativeCase(_ plan: AdvertPlan, cases: [Case]?, withName: Bool = true)
        -> (uuids: [BluetoothUUID], label: [String])
    {
        var label: [String] = []
        if let list = plan.unknown.uuidList { label.append("if \(Quote.code(list)) holds no UUID") }
        let first = cases?.first
        if let first, !first.widths.isEmpty { label.append("if " + caseText(plan, first)) }
        if withName, let unknownName = plan.unknown.name {
            if unknownName.minimumBytes > 0 {
                label.append(
                    "with the name \(Quote.code(unknownName.expression)) at its shortest, "
                        + Quote.text(unknownName.prefix + unknownName.suffix)
                )
            } else {
                label.append("without the name \(Quote.code(unknownName.expression))")
            }
        }
        return (first?.uuids ?? plan.data.serviceUUIDs, label)
    }

    static func representativeName(_ plan: AdvertPlan) -> String? {
        guard let unknownName = plan.unknown.name else { return plan.data.localName }
        let text = unknownName.prefix + unknownName.suffix
        return text.isEmpty ? nil : text
    }

    // MARK: The name

    /// The name's verdict: cut in every case, in none, or it depends; nil without a name.
    static func name(
        _ plan: AdvertPlan,
        left: [Int],
        range: ClosedRange<Int>,
        cases: [Case],
        findings: inout [Finding]
    ) -> NameBounds? {
        let exact = plan.data.localName.flatMap { $0.isEmpty ? nil : $0 }
        let unknownName = plan.unknown.name
        guard exact != nil || unknownName != nil else { return nil }
        let certain = Array((exact ?? unknownName?.prefix ?? "").utf8)
        let lowest = exact.map { $0.utf8.count } ?? unknownName?.minimumBytes ?? 0
        let highest: Int? = exact.map { $0.utf8.count }
        let subject =
            exact.map { "the name \(Quote.text($0))" } ?? "the name \(Quote.code(unknownName?.expression ?? ""))"
        let others = unknowns(plan)
        // In a case with `b` bytes left, the name is whole if 2 + n <= b; else cut to b - 2 in the
        // advertising data (b >= 3), or to at most 8 bytes in the scan response.
        func kept(_ b: Int) -> Int { b >= 3 ? b - 2 : IOSProfile.scanResponseNameBytes }
        let most = kept(range.upperBound)
        let cut: CutVerdict
        if lowest + 2 > range.upperBound {
            cut = .always
        } else if let highest, highest + 2 <= range.lowerBound {
            cut = .never
        } else {
            cut = .unknown
        }
        var perCase = ""
        if cases.count > 1 && cases.count <= 3 {
            perCase =
                "; "
                + zip(cases, left).map { c, b in
                    let fits = highest.map { $0 + 2 <= b } ?? false
                    return "if \(caseText(plan, c)): "
                        + (fits ? "whole" : "cut to \(keptText(kept(b), certain: certain))")
                }.joined(separator: ", ")
        }
        let lengthText = highest.map { "of \($0)" } ?? "of at least \(lowest)"
        let whatever = others.isEmpty ? "" : " whatever \(others) is"
        let summary: String
        switch cut {
        case .always:
            summary =
                "\(subject) is cut\(whatever): at most \(most) \(lengthText) bytes fit"
                + keptBytes(most, certain: certain) + perCase
            findings.append(Rules.iosNameTruncated.finding(summary + "; scanners see the shortened name"))
        case .never:
            summary = "\(subject) fits whole\(whatever)" + perCase
            findings.append(Rules.sourceBound.finding(summary))
        case .unknown:
            let because =
                unknownName != nil && exact == nil
                ? (others.isEmpty ? "on its length" : "on its length and on \(others)") : "on \(others)"
            summary =
                "cannot tell whether \(subject) is cut: it depends \(because); at most \(most) bytes fit"
                + keptBytes(most, certain: certain) + perCase
            findings.append(Rules.sourceDepends.finding(summary))
        }
        return NameBounds(
            expression: exact == nil ? unknownName?.expression : nil,
            cut: cut,
            maximumOnAir: highest.map { min($0, most) } ?? most,
            minimumRequested: lowest,
            maximumRequested: highest,
            summary: summary
        )
    }

    /// `8 bytes, "com.exam"` when those bytes are known (`certain`: the whole name, or the
    /// literal prefix of a partly known one), else `22 bytes`.
    static func keptText(_ count: Int, certain: [UInt8]) -> String {
        guard count <= certain.count else { return "\(count) bytes" }
        return "\(count) bytes, " + Quote.bytes(Array(certain.prefix(count)))
    }

    /// ` ("com.exam")` when the first `count` bytes are known, else nothing.
    static func keptBytes(_ count: Int, certain: [UInt8]) -> String {
        count <= certain.count ? " (" + Quote.bytes(Array(certain.prefix(count))) + ")" : ""
    }

    // MARK: UUIDs

    /// Where each UUID goes in every case, as findings and as the placements' verdicts.
    static func uuidVerdicts(
        _ plan: AdvertPlan,
        placements: [[UUIDPlacement.Place]],
        cases: [Case],
        into r: inout AdvertResult
    ) -> [Finding] {
        var findings: [Finding] = []
        if let list = plan.unknown.uuidList {
            findings.append(
                Rules.sourceDepends.finding(
                    "cannot tell which service UUIDs are advertised: \(Quote.code(list)) holds an unknown number of "
                        + "UUIDs; up to 28 bytes of them fit in the advertising data, the rest go to the overflow area"
                )
            )
            return findings
        }
        let slots = plan.unknown.uuids ?? plan.data.serviceUUIDs.map { .known($0) }
        for (i, slot) in slots.enumerated() where i < r.uuids.count {
            let places = placements.map { i < $0.count ? $0[i] : .notAdvertised }
            let unique = Set(places)
            let what: String
            switch slot {
            case .known(let uuid): what = Describe.uuidText(uuid)
            case .unknown(let expression):
                what = Quote.code(expression)
                r.uuids[i].unknownExpression = expression
                r.uuids[i].width = nil
            }
            let verdict: String
            if unique == [.advertisingData] {
                verdict =
                    if case .unknown = slot { "in the advertising data whatever its width" } else {
                        "in the advertising data in every case"
                    }
                if case .unknown = slot {
                    findings.append(
                        Rules.sourceBound.finding(
                            "\(what) always fits: it is in the advertising data whatever its width"
                        )
                    )
                }
            } else if unique == [.overflowArea] {
                verdict = "in the overflow area in every case"
                findings.append(
                    Rules.iosUUIDOverflow.finding(
                        "\(what) goes to the overflow area whatever \(unknowns(plan)) is: only iOS "
                            + "apps scanning for it find it; Android and other scanners do not"
                    )
                )
            } else {
                let detail = zip(cases, places).map { c, p in
                    "\(p == .advertisingData ? "advertising data" : "overflow area") if \(caseText(plan, c))"
                }
                verdict = "depends on the UUIDs' widths"
                findings.append(
                    Rules.sourceDepends.finding(
                        "cannot tell where \(what) goes: "
                            + (detail.count <= 3 ? detail.joined(separator: ", ") : "it depends on the UUIDs' widths")
                    )
                )
            }
            r.uuids[i].verdict = verdict
        }
        return findings
    }

    // MARK: Marking the case shown

    /// Labels the layouts as partial and marks the bytes of placeholders and unknown names.
    static func markPartial(_ r: inout AdvertResult, _ plan: AdvertPlan, label: [String]) {
        guard !label.isEmpty else { return }
        let text = "partial layout, " + label.joined(separator: " and ")
        r.advertisingData.partial = text
        r.scanResponse.partial = text
        let placeholderCount = plan.unknown.unknownUUIDs.count
        let placeholders = Set((0..<placeholderCount).flatMap { n in widths.map { placeholder(width: $0, n: n) } })
        if placeholderCount > 0, r.overflow?.bits.contains(where: { placeholders.contains($0.uuid) }) ?? false {
            r.overflow?.bits.removeAll { placeholders.contains($0.uuid) }
            r.overflow?.bitmapUnknown = true
        }
        for payload in [\AdvertResult.advertisingData, \AdvertResult.scanResponse] {
            var unknownOffsets = Set<Int>()
            for placed in r[keyPath: payload].structures {
                let s = placed.structure
                let start = placed.offset + 2
                if let width = ADType.listWidth(s.type) {
                    for (k, from) in stride(from: 0, to: s.data.count, by: width).enumerated()
                    where from + width <= s.data.count {
                        let bytes = Array(s.data[from..<(from + width)])
                        if placeholders.contains(where: { AD.uuidBytes($0, width: width) == bytes }) {
                            unknownOffsets.formUnion((start + k * width)..<(start + k * width + width))
                        }
                    }
                } else if OverflowArea.isOverflowArea(s), placeholderCount > 0 {
                    unknownOffsets.formUnion((start + 3)..<(start + s.data.count))
                } else if s.type == ADType.shortenedName || s.type == ADType.completeName,
                    let unknownName = plan.unknown.name
                {
                    // Bytes after the known prefix are the unknown part (or the suffix, whose place is not known).
                    let prefix = unknownName.prefix.utf8.count
                    if s.data.count > prefix { unknownOffsets.formUnion((start + prefix)..<(start + s.data.count)) }
                }
            }
            r[keyPath: payload].unknownOffsets = unknownOffsets
        }
    }

    // MARK: Unknown dictionaries and beacons

    static func unknownDictionary(_ plan: AdvertPlan, _ dictionary: String, _ profile: Profile) -> AdvertResult {
        var r =
            profile == .iosForeground
            ? IOSProfile.foreground(concrete(plan, uuids: [], name: nil), options: CheckOptions())
            : IOSProfile.background(concrete(plan, uuids: [], name: nil), options: CheckOptions())
        r.findings =
            IOSProfile.commonFindings(plan) + [
                Rules.sourceDepends.finding(
                    "cannot tell what is advertised: the advertisement data \(Quote.code(dictionary)) is not known from the "
                        + "sources, so neither is its layout"
                )
            ]
        markPartial(
            &r,
            plan,
            label: ["only the Flags iOS always sends are shown (the data \(Quote.code(dictionary)) is not known)"]
        )
        return r
    }

    /// An iBeacon advert: its size does not depend on its values; unknown values are `??`.
    static func beacon(_ result: AdvertResult, _ plan: AdvertPlan) -> AdvertResult {
        var r = result
        let unknown = plan.unknown.beaconValues
        guard !unknown.isEmpty else { return r }
        // Offsets in the advertising data: Flags (3), then 1A FF 4C 00 02 15 (6), UUID (16),
        // major (2), minor (2), measured power (1) (§4.1).
        var offsets = Set<Int>()
        if unknown.contains("UUID") { offsets.formUnion(9..<25) }
        if unknown.contains("major") { offsets.formUnion(25..<27) }
        if unknown.contains("minor") { offsets.formUnion(27..<29) }
        if unknown.contains("measured power") { offsets.insert(29) }
        r.advertisingData.unknownOffsets = offsets
        let label = "partial layout, the iBeacon values not known shown as ?? (\(unknown.joined(separator: ", ")))"
        r.advertisingData.partial = label
        return r
    }

    // MARK: Background

    static func background(_ plan: AdvertPlan, options: CheckOptions) -> AdvertResult {
        if let dictionary = plan.unknown.dictionary { return unknownDictionary(plan, dictionary, .iosBackground) }
        if plan.iBeacon != nil { return IOSProfile.background(concrete(plan, uuids: [], name: nil), options: options) }
        // The name is never advertised in the background: the layout does not depend on it.
        let representative = representativeCase(plan, cases: cases(plan), withName: false)
        var r = IOSProfile.background(
            concrete(plan, uuids: representative.uuids, name: representativeName(plan)),
            options: options
        )
        r.findings = r.findings.filter {
            !caseRules.contains($0.rule) && !(plan.unknown.name != nil && $0.rule == Rules.iosBackgroundName.id)
        }
        if let unknownName = plan.unknown.name {
            r.findings.append(
                Rules.iosBackgroundName.finding(
                    "in the background iOS does not advertise the local name \(Quote.code(unknownName.expression)), "
                        + "whatever it is; scanners see no name"
                )
            )
        }
        if let list = plan.unknown.uuidList {
            r.findings.append(
                Rules.sourceDepends.finding(
                    "cannot tell whether the overflow area is sent in the background: it holds the UUIDs of "
                        + "\(Quote.code(list)), whose number is not known"
                )
            )
        } else if !r.uuids.isEmpty {
            r.findings.append(
                Rules.iosBackgroundOverflow.finding(
                    "in the background all \(r.uuids.count) service UUID(s) are only in the overflow area: iOS apps "
                        + "scanning for them find the device; Android and other scanners, and iOS scanners not "
                        + "filtering on them, do not; the bits of \(unknowns(plan)) are not known"
                )
            )
            for i in r.uuids.indices { r.uuids[i].verdict = "in the overflow area in every case" }
            for (i, slot) in (plan.unknown.uuids ?? []).enumerated() where i < r.uuids.count {
                if case .unknown(let expression) = slot {
                    r.uuids[i].unknownExpression = expression
                    r.uuids[i].overflowBit = nil
                }
            }
        }
        r.name = r.name.map { outcome in
            var o = outcome
            if let unknownName = plan.unknown.name { o.requested = unknownName.prefix + unknownName.suffix }
            o.bounds = plan.unknown.name.map {
                NameBounds(
                    expression: $0.expression,
                    cut: .always,
                    maximumOnAir: 0,
                    minimumRequested: $0.minimumBytes,
                    maximumRequested: nil,
                    summary: "the name \(Quote.code($0.expression)) is not advertised in the background, whatever it is"
                )
            }
            return o
        }
        markPartial(&r, plan, label: representative.label)
        return r
    }

    /// "`a` and `b`": the unknown UUIDs and UUID array (the values other than the name).
    static func unknowns(_ plan: AdvertPlan) -> String {
        var names = plan.unknown.unknownUUIDs.map { Quote.code($0) }
        if let list = plan.unknown.uuidList { names.append(Quote.code(list)) }
        switch names.count {
        case 0: return ""
        case 1: return names[0]
        default: return names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
        }
    }
}
