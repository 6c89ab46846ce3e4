import BLEAdvBudget
import BLEAdvBudgetSwift

/// The `startAdvertising` calls the swift-syntax reader finds, as the engine's
/// `SourceAdvertisement`s.
enum SwiftSources {
    /// Reads `files` (the Swift files the discovery found) as one module. A file that cannot be
    /// read is a problem naming it; the others are still read.
    static func read(files: [String]) -> (adverts: [SourceAdvertisement], problems: [SourceProblem]) {
        let (result, unreadable) = SwiftAdvertisingScanner().scan(files: files)
        let problems = unreadable.map { error in
            switch error {
            case .unreadable(let path, _): SourceProblem(file: path, message: error.description)
            }
        }
        return (result.calls.map { advert($0, fileWarnings: result.warnings) }, problems)
    }

    static func location(_ l: SwiftSourceLocation) -> SourceLocation {
        SourceLocation(file: l.file, line: l.line, column: l.column)
    }

    static func value(_ v: SwiftAdvertisingValue) -> SourceValue {
        switch v.resolution {
        case .resolved(let text): .resolved(text)
        case .unresolved: .unresolved(expression: v.expression)
        case .partial(let prefix, let suffix, _): .partial(expression: v.expression, prefix: prefix, suffix: suffix)
        }
    }

    /// One reading of a call (one per variant, each with its `variant` label). The reader's notes on values it could not resolve become the engine's
    /// `source.unresolved` findings (which name the expression); its other notes, and those on
    /// the call's file, become `source.reader` warnings.
    static func advert(_ call: SwiftAdvertisingCall, fileWarnings: [SwiftAdvertisingWarning]) -> SourceAdvertisement {
        var findings: [Finding] = []
        let covered: Set<SwiftAdvertisingWarning.Kind> = [.unresolvedValue, .unresolvedList]
        for w in call.warnings where !covered.contains(w.kind) {
            findings.append(Rules.sourceReader.finding("\(w.location): \(w.message)"))
        }
        for w in fileWarnings where w.location.file == call.location.file {
            findings.append(Rules.sourceReader.finding("\(w.location): \(w.message)"))
        }
        var uuids: [SourceValue] = []
        var listUnknown: String?
        if let list = call.serviceUUIDs {
            if list.unresolvedReason != nil {
                listUnknown = list.expression
            } else {
                uuids = list.elements.map(value)
            }
        }
        var dictionaryUnknown: String?
        if case .unresolved(let reason) = call.dictionary {
            dictionaryUnknown = call.argument
            if !call.warnings.contains(where: { $0.kind == .unresolvedDictionary }) {
                findings.append(
                    Rules.sourceReader.finding("the dictionary passed to startAdvertising could not be read: \(reason)")
                )
            }
        }
        return SourceAdvertisement(
            location: location(call.location),
            localName: call.localName.map(value),
            serviceUUIDs: uuids,
            serviceUUIDListUnknown: listUnknown,
            otherKeys: call.otherKeys.map(\.key),
            dictionaryUnknown: dictionaryUnknown,
            iBeacon: call.beacon?.values,
            variant: call.variant,
            findings: findings
        )
    }
}
