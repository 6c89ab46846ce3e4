import BLEAdvBudget
import BLEAdvBudgetSwift

/// `adv-budget --swift`: the `startAdvertising` calls the swift-syntax reader finds, as the
/// engine's `SourceAdvertisement`s.
enum AdvBudgetSources {
    /// The adverts of the Swift sources under `paths`, or the reader's error text.
    static func adverts(_ paths: [String]) -> Result<[SourceAdvertisement], SwiftAdvertisingScanError> {
        let result: SwiftAdvertisingScanResult
        do throws(SwiftAdvertisingScanError) {
            result = try SwiftAdvertisingScanner().scan(paths: paths)
        } catch {
            return .failure(error)
        }
        return .success(result.calls.map { advert($0, fileWarnings: result.warnings) })
    }

    static func location(_ l: SwiftSourceLocation) -> SourceLocation {
        SourceLocation(file: l.file, line: l.line, column: l.column)
    }

    static func value(_ v: SwiftAdvertisingValue) -> SourceValue {
        switch v.resolution {
        case .resolved(let text): .resolved(text)
        case .unresolved: .unresolved(expression: v.expression)
        }
    }

    /// One call. The reader's notes on values it could not resolve become the engine's
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
        if let list = call.serviceUUIDs {
            if list.unresolvedReason != nil {
                uuids = [.unresolved(expression: list.expression)]
            } else {
                uuids = list.elements.map(value)
            }
        }
        if case .unresolved(let reason) = call.dictionary,
            !call.warnings.contains(where: { $0.kind == .unresolvedDictionary })
        {
            findings.append(
                Rules.sourceReader.finding("the dictionary passed to startAdvertising could not be read: \(reason)")
            )
        }
        return SourceAdvertisement(
            location: location(call.location),
            localName: call.localName.map(value),
            serviceUUIDs: uuids,
            otherKeys: call.otherKeys.map(\.key),
            findings: findings
        )
    }
}
