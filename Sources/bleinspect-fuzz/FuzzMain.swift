import BLEInspectFuzz
import Foundation

// One program, two builds. `scripts/fuzz` builds it with libFuzzer and AddressSanitizer
// (-DBLEINSPECT_LIBFUZZER): libFuzzer's main calls `LLVMFuzzerTestOneInput` with the target
// named by BLEINSPECT_FUZZ_TARGET. Both builds also run the commands below (the libFuzzer one
// when its first argument is one of them): replaying inputs, writing seeds, the corrupted-
// capture sweep.

/// The commands; nil when `arguments` names none, status otherwise.
func command(_ arguments: [String]) -> Int32? {
    guard let verb = arguments.first else { return nil }
    let rest = Array(arguments.dropFirst())
    switch verb {
    case "targets":
        for target in FuzzTarget.allCases { print(target.rawValue) }
        return 0
    case "run":
        // run TARGET FILE|DIR...: each input once, naming it first (so a crash is attributed).
        guard let name = rest.first, let target = FuzzTarget(rawValue: name) else { return usage() }
        var count = 0
        for path in inputFiles(Array(rest.dropFirst())) {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("bleinspect-fuzz: cannot read \(path)\n".utf8))
                return 66
            }
            FileHandle.standardError.write(Data("run \(target.rawValue) \(path)\n".utf8))
            target.run([UInt8](data.prefix(FuzzTarget.maximumInput)))
            count += 1
        }
        print("\(count) inputs of \(target.rawValue) ran without a crash")
        return 0
    case "seeds":
        // seeds OUTDIR CAPTUREDIR...: the seed corpora, from the repository in the current folder.
        guard let out = rest.first else { return usage() }
        let counts = Seeds.write(
            to: out,
            captureDirectories: Array(rest.dropFirst()),
            root: FileManager.default.currentDirectoryPath
        )
        for (target, n) in counts.sorted(by: { $0.key < $1.key }) { print("\(target): \(n) seeds") }
        return 0
    case "sweep":
        return sweep(rest)
    default:
        return nil
    }
}

/// sweep [--variants N] [--seed S] [--time-limit SECONDS] [--only NAME:N --write PATH] FILE|DIR...
func sweep(_ arguments: [String]) -> Int32 {
    var sweep = Sweep()
    var only: (String, Int)? = nil
    var write: String? = nil
    var paths: [String] = []
    var i = 0
    while i < arguments.count {
        let a = arguments[i]
        let value = i + 1 < arguments.count ? arguments[i + 1] : ""
        switch a {
        case "--variants": sweep.variants = Int(value) ?? sweep.variants; i += 1
        case "--seed": sweep.seed = UInt64(value) ?? sweep.seed; i += 1
        case "--time-limit": sweep.timeLimit = Double(value) ?? sweep.timeLimit; i += 1
        case "--write": write = value; i += 1
        case "--only":
            let parts = value.split(separator: ":")
            if parts.count == 2, let n = Int(parts[1]) { only = (String(parts[0]), n) }
            i += 1
        default: paths.append(a)
        }
        i += 1
    }
    let files = inputFiles(paths)
    if let (name, number) = only {
        guard let path = files.first(where: { ($0 as NSString).lastPathComponent == name }),
            let data = FileManager.default.contents(atPath: path)
        else { return usage() }
        let bytes = sweep.variant(of: [UInt8](data), name: name, number: number)
        if let write { FileManager.default.createFile(atPath: write, contents: Data(bytes)) }
        let outcome = Sweep.decode(bytes)
        print("\(name):\(number): \(bytes.count) bytes, \(outcome.frames) frames")
        return 0
    }
    let started = Date()
    // Each capture's line is out as soon as it is done, so a long sweep shows its progress.
    guard
        let totals = sweep.run(
            files,
            log: {
                print($0)
                fflush(nil)
            }
        )
    else { return 3 }
    print(
        "sweep: \(totals.captures) captures, \(totals.variants) variants (seed \(sweep.seed)), \(totals.frames) frames decoded, "
            + "\(totals.damaged) stopped at damage, \(totals.rejected) rejected at the start, no crash, no hang; "
            + String(
                format: "slowest %@:%d %.2f s; %.0f s in all",
                totals.slowest.name,
                totals.slowest.number,
                totals.slowest.seconds,
                Date().timeIntervalSince(started)
            )
    )
    return 0
}

/// Files, and the files in folders (not recursing), sorted.
func inputFiles(_ paths: [String]) -> [String] {
    paths.flatMap { path -> [String] in
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().filter { name in
            !name.hasPrefix(".") && ![".tsv", ".md", ".json"].contains { name.hasSuffix($0) }
        }
        .map { path + "/" + $0 }
    }
}

func usage() -> Int32 {
    FileHandle.standardError.write(
        Data(
            """
            usage: bleinspect-fuzz targets
                   bleinspect-fuzz run TARGET FILE|DIR...
                   bleinspect-fuzz seeds OUTDIR CAPTUREDIR...
                   bleinspect-fuzz sweep [--variants N] [--seed S] [--time-limit S] [--only NAME:N --write PATH] FILE|DIR...

            """.utf8
        )
    )
    return 64
}

#if BLEINSPECT_LIBFUZZER
    nonisolated(unsafe) var selected: FuzzTarget? = nil

    @_cdecl("LLVMFuzzerInitialize")
    public func fuzzerInitialize(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>
    ) -> Int32 {
        let arguments = (1..<Int(argc.pointee)).compactMap { argv.pointee[$0].map { String(cString: $0) } }
        if let status = command(arguments) { exit(status) }
        let name = ProcessInfo.processInfo.environment["BLEINSPECT_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(
                Data(
                    "set BLEINSPECT_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))\n"
                        .utf8
                )
            )
            exit(64)
        }
        selected = target
        // Made before the first input, so that start-up work is not counted as a slow input.
        target.run([])
        return 0
    }

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let target = selected else { return 0 }
        target.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
        return 0
    }
#else
    @main
    struct FuzzMain {
        static func main() {
            exit(command(Array(CommandLine.arguments.dropFirst())) ?? usage())
        }
    }
#endif
