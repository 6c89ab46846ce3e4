/// Options of a check.
public struct CheckOptions: Hashable, Sendable {
    /// The extended-advertising maximum: 1650 (§1.3), or the controller's
    /// HCI_LE_Read_Maximum_Advertising_Data_Length, 31...1650.
    public var extendedMaximum: Int
    /// The bit order of the overflow bitmap bytes in layouts (both orders are always reported).
    public var overflowBitOrder: OverflowBitOrder

    public static let extendedMaximumRange = 31...1650

    public init(extendedMaximum: Int = 1650, overflowBitOrder: OverflowBitOrder = .msbFirst) {
        self.extendedMaximum = extendedMaximum
        self.overflowBitOrder = overflowBitOrder
    }
}

/// The advertising budget engine.
public enum AdvBudgetEngine {
    /// The platforms checked when neither `--platform` nor the plan names any.
    public static let defaultPlatforms: [Platform] = [.ios, .android]

    /// The profiles for a plan: `platforms` when given (the command line), else the plan's own,
    /// else `defaultPlatforms`.
    public static func profiles(
        for plan: AdvertPlan,
        platforms: [Platform]?,
        options: CheckOptions = CheckOptions()
    ) -> [Profile] {
        let chosen = platforms ?? plan.platforms ?? defaultPlatforms
        var seen: Set<Platform> = []
        return chosen.filter { seen.insert($0).inserted }.flatMap {
            Profile.profiles(for: $0, extendedMaximum: options.extendedMaximum)
        }
    }

    /// One plan against one profile. The producer's findings come first.
    public static func check(_ plan: AdvertPlan, profile: Profile, options: CheckOptions = CheckOptions())
        -> AdvertResult
    {
        var result: AdvertResult
        let exact = plan.unknown.isEmpty
        switch profile {
        case .iosForeground:
            result =
                exact ? IOSProfile.foreground(plan, options: options) : IOSBounds.foreground(plan, options: options)
        case .iosBackground:
            result =
                exact ? IOSProfile.background(plan, options: options) : IOSBounds.background(plan, options: options)
        case .android: result = AndroidProfile.check(plan)
        case .legacy, .extended: result = GenericProfile.check(plan, profile: profile)
        }
        if !exact && profile != .iosForeground && profile != .iosBackground {
            // The other profiles have no bounds for unknown values: the layout leaves them out, and
            // says so on its line and in a finding.
            let label = "partial layout, without the values the sources do not fix"
            result.advertisingData.partial = label
            result.scanResponse.partial = label
            result.findings.append(
                Rules.sourceDepends.finding(
                    "cannot tell: the \(profile.id) profile is computed without the values the sources do not fix"
                )
            )
        }
        result.variant = plan.variant
        result.findings = plan.inputFindings + result.findings
        return result
    }

    /// Plans against their profiles, in order: plan by plan, profile by profile.
    public static func check(
        _ plans: [AdvertPlan],
        platforms: [Platform]?,
        options: CheckOptions = CheckOptions()
    ) -> [AdvertResult] {
        plans.flatMap { plan in
            profiles(for: plan, platforms: platforms, options: options).map {
                check(plan, profile: $0, options: options)
            }
        }
    }

    /// An advert given as raw AD bytes (captures): parsed into AD structures and checked against
    /// the legacy or extended limits and the per-type rules of §1.
    public static func check(raw: RawAdvert, options: CheckOptions = CheckOptions()) -> AdvertResult {
        GenericProfile.check(raw: raw, options: options)
    }
}
