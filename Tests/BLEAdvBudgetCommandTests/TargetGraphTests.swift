import Foundation
import Testing

/// `bleinspect-adv` and the check-advertising plugin must build on the macOS runners where iOS
/// apps build. No Mac is at hand, so this checks the target graph SwiftPM itself reports
/// (`swift package dump-package`): what they depend on, and what those targets' sources import.
@Suite("bleinspect-adv builds without Linux-only targets")
struct TargetGraphTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// Targets that need Linux or system libraries: libpcap, libbluetooth, glibc shims, and
    /// everything built on them.
    static let linuxOnly: Set<String> = [
        "CPcap", "CBluetooth", "CCaptureShims", "BLECapture", "BLECapturePcap", "BLECaptureLive", "BLEInspect",
        "BLEInspectCLI", "bleinspect", "BLEInspectFuzz",
    ]
    /// Modules a macOS build cannot import unconditionally.
    static let linuxModules = ["Glibc", "Musl", "CPcap", "CBluetooth", "CCaptureShims", "SwiftGlibc"]

    struct Manifest {
        /// Target name → (names of target dependencies, product dependencies, path, type).
        var targets: [String: (targets: [String], products: [String], path: String?, type: String)]
    }

    static func manifest() throws -> Manifest {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Its own scratch path: `swift test` holds the lock on .build.
        process.arguments = [
            "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package dump-package failed")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var targets: [String: (targets: [String], products: [String], path: String?, type: String)] = [:]
        for target in json["targets"] as? [[String: Any]] ?? [] {
            guard let name = target["name"] as? String else { continue }
            var names: [String] = []
            var products: [String] = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                if let byName = dependency["byName"] as? [Any], let first = byName.first as? String {
                    names.append(first)
                }
                if let target = dependency["target"] as? [Any], let first = target.first as? String {
                    names.append(first)
                }
                if let product = dependency["product"] as? [Any], let first = product.first as? String {
                    products.append(first)
                }
            }
            targets[name] = (names, products, target["path"] as? String, target["type"] as? String ?? "")
        }
        return Manifest(targets: targets)
    }

    /// The targets `start` depends on, directly or not, itself included.
    static func closure(of start: String, in manifest: Manifest) -> Set<String> {
        var seen: Set<String> = []
        var queue = [start]
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            queue += manifest.targets[next]?.targets ?? []
        }
        return seen
    }

    @Test("bleinspect-adv and the plugin depend on no Linux-only target, and only on portable packages")
    func dependencyClosure() throws {
        let manifest = try Self.manifest()
        let plugin = try #require(manifest.targets["CheckAdvertising"])
        #expect(plugin.type == "plugin")
        #expect(plugin.targets == ["bleinspect-adv"])
        let closure = Self.closure(of: "bleinspect-adv", in: manifest)
        #expect(closure.contains("BLEAdvBudgetObjC") && closure.contains("BLEAdvBudgetSwift"))
        #expect(closure.isDisjoint(with: Self.linuxOnly), "\(closure.intersection(Self.linuxOnly))")
        let products = Set(closure.flatMap { manifest.targets[$0]?.products ?? [] })
        #expect(products.isSubset(of: ["ArgumentParser", "Yams", "SwiftSyntax", "SwiftParser"]), "\(products)")
        for name in closure {
            #expect(
                manifest.targets[name]?.type == "regular" || manifest.targets[name]?.type == "executable",
                "\(name)"
            )
        }
    }

    @Test("no source of those targets imports Glibc, libpcap or libbluetooth without a Darwin alternative")
    func imports() throws {
        let manifest = try Self.manifest()
        for name in Self.closure(of: "bleinspect-adv", in: manifest) {
            let path = manifest.targets[name]?.path ?? "Sources/\(name)"
            let directory = Self.root.appendingPathComponent(path)
            let files = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap {
                $0 as? String
            }
            #expect(!files.isEmpty, "\(name)")
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                for (i, line) in lines.enumerated() {
                    let words = line.split(separator: " ")
                    guard let module = words.last.map(String.init), words.contains("import"),
                        Self.linuxModules.contains(module)
                    else { continue }
                    // Allowed only as `#if canImport(Glibc)` … `#elseif canImport(Darwin)` … .
                    let guarded =
                        i > 0
                        && (lines[i - 1].hasPrefix("#if canImport(\(module))")
                            || lines[i - 1].hasPrefix("#elseif canImport(\(module))"))
                    #expect(guarded && text.contains("canImport(Darwin)"), "\(name)/\(file):\(i + 1): \(line)")
                }
            }
        }
    }
}
