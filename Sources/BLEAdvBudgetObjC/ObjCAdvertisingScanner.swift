public import BLEAdvBudget
import Foundation

/// Reads Objective-C sources (`.m`, `.mm`) through clang for `startAdvertising:` messages.
///
/// Each translation unit is parsed by `clang -fsyntax-only -Xclang -ast-dump=json`, with the
/// project's header directories as `-I` and small stub headers for Foundation, CoreBluetooth,
/// CoreLocation, UIKit and AppKit as `-isystem`; the reader walks the JSON AST, never the text.
/// clang expands macros and skips `#if 0` and comments. What is followed:
///
/// - messages `startAdvertising:` whose receiver's static type is `CBPeripheralManager` or a
///   subclass (or `super` in one), or `id` when clang's first declared `-startAdvertising:` is
///   CoreBluetooth's; an app's own `-startAdvertising:` is not one;
/// - the dictionary: `@{…}`, `dictionaryWithObjectsAndKeys:`, `dictionaryWithObjects:forKeys:`,
///   `dictionaryWithObject:forKey:`, `nil`, a variable initialised with one (local, `static` or
///   global, also through `extern` declarations in headers), plus keys set on a local mutable
///   dictionary before the call (`d[k] = v`, `setObject:forKey:`); `peripheralDataWithMeasuredPower:`
///   is an iBeacon advert;
/// - strings: literals (adjacent ones joined), macros, `const` variables, `stringWithString:`,
///   `stringWithFormat:` (exact when every conversion is `%@ %d %i %u %s` with a known value,
///   else the literal text around the conversions);
/// - UUIDs: `[CBUUID UUIDWithString:]` as written, `UUIDWithNSUUID:` of `initWithUUIDString:`,
///   arrays written inline or held by variables.
///
/// When the file or a project header it includes has an `#if` mentioning `DEBUG`, it is parsed
/// again with `-DDEBUG=1`; calls that differ get one advert per configuration (`variant`
/// "#if DEBUG" and "without DEBUG"). Output strings are raw source text; renderers escape them.
public struct ObjCAdvertisingScanner: Sendable {
    /// The clang to run: this path when given, else `$BLEINSPECT_CLANG`, else `clang` on `PATH`.
    public var clang: String?
    /// How many declarations deep a reference is followed before it is left unresolved.
    public var maximumResolutionDepth: Int

    public init(clang: String? = nil, maximumResolutionDepth: Int = 32) {
        self.clang = clang
        self.maximumResolutionDepth = maximumResolutionDepth
    }

    /// The clang this scanner would run, or nil when none is found.
    public func locateClang() -> String? {
        ClangRunner.locate(explicit: clang, environment: ProcessInfo.processInfo.environment)
    }

    /// Parses each translation unit (`.m`, `.mm`) with `headerSearchPaths` as `-I` (the
    /// directories of the scanned headers), and returns every `startAdvertising:` message.
    public func scan(files: [String], headerSearchPaths: [String]) -> ObjCScanResult {
        guard let clang = locateClang() else {
            let looked = clang ?? ProcessInfo.processInfo.environment["BLEINSPECT_CLANG"] ?? "clang on PATH"
            return Self.unread(
                files,
                "clang was not found (looked for \(looked)); Objective-C is read through clang: install it, or set "
                    + "BLEINSPECT_CLANG to its path"
            )
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bleinspect-objc-\(UUID().uuidString)",
            isDirectory: true
        )
        defer { try? FileManager.default.removeItem(at: work) }
        let stubs = work.appendingPathComponent("stubs", isDirectory: true)
        do {
            try StubHeaders.write(to: stubs)
        } catch {
            return Self.unread(
                files,
                "the stub headers could not be written to \(work.path): \(error.localizedDescription)"
            )
        }
        let runner = ClangRunner(clang: clang, stubDirectory: stubs.path, workDirectory: work)
        var result = ObjCScanResult(filesRead: [], adverts: [], problems: [])
        for (number, file) in files.enumerated() {
            let unit = TranslationUnitScan(
                runner: runner,
                file: file,
                headerSearchPaths: headerSearchPaths,
                maximumDepth: maximumResolutionDepth
            )
            let read = unit.read(tag: "tu\(number)")
            if read.parsed { result.filesRead.append(file) }
            result.adverts += read.adverts
            result.problems += read.problems
        }
        return result
    }
}

extension ObjCAdvertisingScanner {
    /// Every file as a problem with the same reason: nothing could be parsed.
    fileprivate static func unread(_ files: [String], _ message: String) -> ObjCScanResult {
        ObjCScanResult(filesRead: [], adverts: [], problems: files.map { SourceProblem(file: $0, message: message) })
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
