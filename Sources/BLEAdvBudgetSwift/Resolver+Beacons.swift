internal import BLEAdvBudget
internal import SwiftSyntax

/// `CLBeaconRegion.peripheralData(withMeasuredPower:)`: the iBeacon dictionary.
extension Resolver {
    /// The beacon dictionary when `expr` is `region.peripheralData(withMeasuredPower:)`, with the
    /// region followed to its `CLBeaconRegion(uuid:major:minor:identifier:)`,
    /// `(proximityUUID:…)` or `(beaconIdentityConstraint:identifier:)` initialiser. Values not
    /// known are nil, each with a warning.
    func beaconDictionary(_ expr: ExprSyntax) -> FoundDictionary? {
        guard let call = expr.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text == "peripheralData", let region = member.base,
            call.arguments.count == 1, let power = call.arguments.first, power.label?.text == "withMeasuredPower"
        else { return nil }
        let written = call.trimmedDescription
        var beacon = SwiftBeaconAdvertisement(
            location: index.location(of: call),
            values: SourceBeacon(expression: written)
        )
        if !Self.strip(power.expression).is(NilLiteralExprSyntax.self) {
            beacon.values.measuredPower = known(
                integer(power.expression),
                "measured power",
                of: written,
                at: power.expression
            )
        }
        switch expression(region, { self.regionFields($0) }) {
        case .success(let fields):
            beacon.values.uuid = known(fields.uuid, "proximity UUID", of: written, at: region)
            beacon.values.major = known(fields.major, "major", of: written, at: region)
            beacon.values.minor = known(fields.minor, "minor", of: written, at: region)
        case .failure(let failure):
            warn(
                .unresolvedBeacon,
                at: region,
                "the region of `\(written)` could not be resolved: \(failure.message); its UUID, major and minor "
                    + "are not known"
            )
        }
        return FoundDictionary(literal: index.location(of: call), entries: [], beacon: beacon)
    }

    private struct RegionFields {
        var uuid: Result<String, Unresolved>
        var major: Result<Int, Unresolved>
        var minor: Result<Int, Unresolved>
    }

    private func regionFields(_ value: ExprSyntax) -> Result<RegionFields, Unresolved> {
        guard let call = value.as(FunctionCallExprSyntax.self),
            let type = Self.components(of: call.calledExpression)?.filter({ $0 != "init" }).last,
            ["CLBeaconRegion", "CLBeaconIdentityConstraint"].contains(type)
        else {
            return .failure(
                Unresolved(reason: "`\(value.trimmedDescription)` is not a CLBeaconRegion initialiser call")
            )
        }
        if let constraint = call.arguments.first(where: { $0.label?.text == "beaconIdentityConstraint" }) {
            return expression(constraint.expression) { self.regionFields($0) }
        }
        func field(_ labels: [String], _ name: String) -> ExprSyntax? {
            call.arguments.first { labels.contains($0.label?.text ?? "") }?.expression
        }
        let absent = { (name: String) in
            Result<Int, Unresolved>.failure(
                Unresolved(reason: "`\(call.trimmedDescription)` gives no \(name); the region matches any")
            )
        }
        let uuid =
            field(["uuid", "proximityUUID"], "uuid").map { nsuuid($0) }
            ?? .failure(Unresolved(reason: "`\(call.trimmedDescription)` gives no UUID"))
        let major = field(["major"], "major").map { integer($0) } ?? absent("major")
        let minor = field(["minor"], "minor").map { integer($0) } ?? absent("minor")
        return .success(RegionFields(uuid: uuid, major: major, minor: minor))
    }

    /// The value, or nil with a warning naming what could not be resolved.
    private func known<T>(_ result: Result<T, Unresolved>, _ what: String, of call: String, at node: ExprSyntax) -> T? {
        switch result {
        case .success(let value):
            return value
        case .failure(let failure):
            warn(.unresolvedBeacon, at: node, "iBeacon \(what) of `\(call)` could not be resolved: \(failure.message)")
            return nil
        }
    }

    /// An integer: a literal (negative, hex or with `_`), a conversion such as
    /// `CLBeaconMajorValue(1)` or `NSNumber(value: -59)`, or a constant holding one.
    func integer(_ expression: ExprSyntax) -> Result<Int, Unresolved> {
        let expr = Self.strip(expression)
        if let literal = expr.as(IntegerLiteralExprSyntax.self) { return Self.integerValue(literal) }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
            let literal = prefix.expression.as(IntegerLiteralExprSyntax.self)
        {
            return Self.integerValue(literal).map { -$0 }
        }
        if let call = expr.as(FunctionCallExprSyntax.self), call.arguments.count == 1,
            let argument = call.arguments.first, [nil, "value"].contains(argument.label?.text),
            let type = Self.components(of: call.calledExpression)?.last,
            ["CLBeaconMajorValue", "CLBeaconMinorValue", "UInt16", "Int", "Int8", "Int16", "NSNumber"].contains(type)
        {
            return integer(argument.expression)
        }
        if let followed = followShapes(expr, { self.integer($0) }) { return followed }
        if let lookup = lookupReference(expr, implicitType: nil) {
            return follow(lookup, written: expr) { self.integer($0) }
        }
        return .failure(Unresolved(reason: Self.unsupported(expr, expected: "an integer literal")))
    }

    private static func integerValue(_ literal: IntegerLiteralExprSyntax) -> Result<Int, Unresolved> {
        let text = literal.literal.text.filter { $0 != "_" }
        let value =
            text.hasPrefix("0x")
            ? Int(text.dropFirst(2), radix: 16)
            : text.hasPrefix("0b")
                ? Int(text.dropFirst(2), radix: 2)
                : text.hasPrefix("0o") ? Int(text.dropFirst(2), radix: 8) : Int(text)
        guard let value else {
            return .failure(Unresolved(reason: "`\(literal.trimmedDescription)` is not an integer the reader reads"))
        }
        return .success(value)
    }
}
