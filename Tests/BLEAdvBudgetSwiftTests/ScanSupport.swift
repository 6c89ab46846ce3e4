import BLEAdvBudgetSwift
import Testing

/// Scans inline sources as one module.
func scan(_ files: [(String, String)], depth: Int = 32, variants: Int = 16) -> SwiftAdvertisingScanResult {
    SwiftAdvertisingScanner(maximumResolutionDepth: depth, maximumVariants: variants).scan(
        sources: files.map { SwiftSourceFile(path: $0.0, text: $0.1) }
    )
}

/// Scans one inline file that must hold exactly one `startAdvertising` call.
func scanOne(_ text: String, others: [(String, String)] = [], depth: Int = 32) throws -> SwiftAdvertisingCall {
    let result = scan([("App.swift", text)] + others, depth: depth)
    try #require(result.calls.count == 1, "calls: \(result.calls)")
    return try #require(result.calls.first)
}

/// A call's local name as a resolved string (nil when unresolved or absent).
func name(_ call: SwiftAdvertisingCall) -> String? { call.localName?.resolvedValue }

/// A call's service UUIDs when all resolved.
func uuids(_ call: SwiftAdvertisingCall) -> [String]? { call.serviceUUIDs?.resolvedUUIDs }

func location(_ file: String, _ line: Int, _ column: Int) -> SwiftSourceLocation {
    SwiftSourceLocation(file: file, line: line, column: column)
}
