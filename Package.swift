// swift-tools-version: 6.1
import PackageDescription

/// Dissector modules: each is its own target and never imports another (they meet through tables).
let dissectors = ["HCI", "Advertising", "L2CAP", "ATT", "SMP", "Device", "LinkLayer"]
let dissectorTargets: [Target] = dissectors.flatMap { name -> [Target] in
    [
        .target(name: "BLEDissector\(name)", dependencies: ["BLEInspectCore", "BLEAssignedNumbers"]),
        .testTarget(
            name: "BLEDissector\(name)Tests",
            dependencies: [.target(name: "BLEDissector\(name)"), "BLEInspect", "BLEInspectTestSupport"]
        ),
    ]
}
let dissectorDependencies: [Target.Dependency] = dissectors.map { .target(name: "BLEDissector\($0)") }

let package = Package(
    name: "bleinspect",
    products: [
        .executable(name: "bleinspect", targets: ["bleinspect"]),
        // The advertising checker alone: builds on macOS (no Glibc, libpcap or libbluetooth), for
        // iOS CI and the check-advertising plugin.
        .executable(name: "bleinspect-adv", targets: ["bleinspect-adv"]),
        .library(name: "BLEInspect", targets: ["BLEInspect"]),
        // For packages that build their own `bleinspect` with dissector modules of their own
        // (examples/custom-dissector): the command line, and the API a module is written against.
        .library(name: "BLEInspectCLI", targets: ["BLEInspectCLI"]),
        .library(name: "BLEInspectCore", targets: ["BLEInspectCore"]),
        .plugin(name: "CheckAdvertising", targets: ["CheckAdvertising"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // Frame model and helpers shared by every layer; standard library only.
        .target(name: "BLEInspectCore"),
        // Bluetooth SIG assigned numbers (companies, UUID names), generated from the PyPI package
        // bluetooth-numbers by scripts/generate_assigned_numbers.py; the output is committed.
        .target(name: "BLEAssignedNumbers"),
        // Pure-Swift capture formats: btsnoop, PacketLogger, pcapng writing, format detection.
        .target(name: "BLECapture", dependencies: ["BLEInspectCore", "CCaptureShims"]),
        // libpcap-backed pcap/pcapng reading and pcap writing. The only target that sees libpcap.
        .target(name: "BLECapturePcap", dependencies: ["BLECapture", "CPcap"]),
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        // Small C helpers that need glibc extensions or C macros: a FILE* fed by a reader,
        // recvmsg with its timestamp, sigaction.
        .target(name: "CCaptureShims"),
        // The libbluetooth-dev headers (sockaddr_hci, the HCI channel constants); headers only,
        // nothing is linked.
        .systemLibrary(name: "CBluetooth", providers: [.apt(["libbluetooth-dev"])]),
        // Live sources: the HCI monitor socket (behind a syscall seam), streams from pipes,
        // FIFOs and TCP, files followed as they grow, stopping on signals, and serving a
        // capture as a live btsnoop stream.
        .target(name: "BLECaptureLive", dependencies: ["BLECapture", "BLEInspectCore", "CCaptureShims", "CBluetooth"]),
        // Wireshark-style display filters, compiled once against the registry's field catalog.
        .target(name: "BLEInspectFilter", dependencies: ["BLEInspectCore"]),
        // User plugins: YAML profiles compiled into fields, layouts and bindings, registered
        // through the same RegistryBuilder as the built-in modules.
        .target(
            name: "BLEInspectPlugins",
            dependencies: ["BLEInspectCore", .product(name: "Yams", package: "Yams")]
        ),
        // Everything the CLI uses: opening any capture, writing, the read pipeline and its output.
        .target(
            name: "BLEInspect",
            dependencies: [
                "BLEInspectCore", "BLECapture", "BLECapturePcap", "BLECaptureLive", "BLEAssignedNumbers",
                "BLEInspectFilter", "BLEAdvBudget", "BLEInspectPlugins",
            ]
                + dissectorDependencies
        ),
        // The command line: every subcommand, and `BLEInspectTool.main(modules:)`, which runs it
        // with the built-in dissector modules plus a package's own.
        .target(
            name: "BLEInspectCLI",
            dependencies: [
                "BLEInspect",
                "BLEInspectCore",
                "BLEAdvBudget",
                "BLEAdvBudgetCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Fuzz targets for libFuzzer (scripts/fuzz, docs/ROBUSTNESS.md), the seed corpora and the
        // corrupted-capture sweep; the regression tests run the same targets.
        .target(
            name: "BLEInspectFuzz",
            dependencies: [
                "BLEInspect", "BLEInspectCore", "BLECapture", "BLECapturePcap", "BLECaptureLive", "BLEInspectFilter",
                "BLEInspectPlugins", "BLEAdvBudget",
            ]
        ),
        // Built by scripts/fuzz with libFuzzer and AddressSanitizer; the ordinary build replays
        // inputs and runs the sweep.
        .executableTarget(name: "bleinspect-fuzz", dependencies: ["BLEInspectFuzz"]),
        // The `bleinspect` executable: one `main.swift` that calls `BLEInspectTool.main()`.
        .executableTarget(name: "bleinspect", dependencies: ["BLEInspectCLI"]),
        // The example package's dissector module (examples/custom-dissector), built and tested here
        // from the same sources, so that CI checks it without building the example package.
        .target(
            name: "ExampleDissector",
            dependencies: ["BLEInspectCore"],
            path: "examples/custom-dissector/Sources/ThermoProbeDissector"
        ),
        .testTarget(
            name: "ExampleDissectorTests",
            dependencies: ["ExampleDissector", "BLEInspect", "BLEInspectCore", "BLEInspectTestSupport"]
        ),
        // Advertising payload budgets: plans (YAML/JSON), platform profiles, layouts, findings and
        // their CI formats. No dissectors: captured adverts arrive as AD bytes.
        .target(
            name: "BLEAdvBudget",
            dependencies: ["BLEInspectCore", "BLEAssignedNumbers", .product(name: "Yams", package: "Yams")]
        ),
        // Reads Swift sources with swift-syntax for `startAdvertising` dictionaries. The only
        // target that sees swift-syntax.
        .target(
            name: "BLEAdvBudgetSwift",
            dependencies: [
                "BLEAdvBudget",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        // Reads Objective-C sources through clang's JSON AST (`clang -fsyntax-only -Xclang
        // -ast-dump=json`, with stub CoreBluetooth headers) for `startAdvertising:` messages.
        .target(name: "BLEAdvBudgetObjC", dependencies: ["BLEAdvBudget"]),
        // `adv-budget` without captures: finding the sources, reading them with both readers, the
        // command's options and exit statuses. Shared by `bleinspect adv-budget` and
        // `bleinspect-adv`; imports nothing Linux-only, so it builds on macOS.
        .target(
            name: "BLEAdvBudgetCommand",
            dependencies: [
                "BLEAdvBudget", "BLEAdvBudgetSwift", "BLEAdvBudgetObjC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `bleinspect-adv`: the advertising checker alone, for macOS runners and the plugin.
        .executableTarget(
            name: "bleinspect-adv",
            dependencies: ["BLEAdvBudgetCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "BLEAdvBudgetTests", dependencies: ["BLEAdvBudget"]),
        .testTarget(name: "BLEAdvBudgetSwiftTests", dependencies: ["BLEAdvBudget", "BLEAdvBudgetSwift"]),
        .testTarget(name: "BLEAdvBudgetObjCTests", dependencies: ["BLEAdvBudgetObjC", "BLEAdvBudget"]),
        .testTarget(
            name: "BLEAdvBudgetCommandTests",
            dependencies: ["BLEAdvBudgetCommand", "BLEAdvBudget", "bleinspect-adv", "BLEInspectTestSupport"]
        ),
        // `swift package check-advertising`: adv-budget --swift over a package's Swift targets.
        .plugin(
            name: "CheckAdvertising",
            capability: .command(
                intent: .custom(
                    verb: "check-advertising",
                    description: "Check the startAdvertising calls of the Swift targets against the iOS byte budgets"
                )
            ),
            dependencies: ["bleinspect-adv"]
        ),
        .plugin(
            name: "LintSource",
            capability: .command(
                intent: .custom(verb: "lint-source", description: "Run the toolchain's swift-format lint over Sources")
            )
        ),
        .target(name: "BLEInspectTestSupport", dependencies: ["BLEInspect", "BLEInspectFuzz"], path: "Tests/Support"),
        .testTarget(
            name: "BLECaptureTests",
            dependencies: ["BLECapture", "BLECapturePcap", "BLEInspect", "BLEInspectTestSupport"]
        ),
        .testTarget(
            name: "BLECaptureLiveTests",
            dependencies: ["BLECaptureLive", "BLECapture", "BLEInspect", "BLEInspectTestSupport", "bleinspect"]
        ),
        .testTarget(name: "BLEAssignedNumbersTests", dependencies: ["BLEAssignedNumbers"]),
        .testTarget(
            name: "BLEInspectFilterTests",
            dependencies: ["BLEInspectFilter", "BLEInspect", "BLEInspectTestSupport"]
        ),
        .testTarget(
            name: "BLEInspectTests",
            dependencies: ["BLEInspect", "BLEInspectCLI", "BLEInspectTestSupport", "BLEInspectFuzz", "bleinspect"]
        ),
        .testTarget(
            name: "BLEInspectPluginsTests",
            dependencies: ["BLEInspectPlugins", "BLEInspect", "BLEInspectTestSupport", "bleinspect"],
            exclude: ["Fixtures"]
        ),
    ] + dissectorTargets,
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    switch target.type {
    case .regular, .test, .executable:
        var settings = target.swiftSettings ?? []
        settings.append(.enableUpcomingFeature("ExistentialAny"))
        settings.append(.enableUpcomingFeature("MemberImportVisibility"))
        target.swiftSettings = settings
    default:
        break
    }
}
