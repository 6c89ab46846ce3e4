// swift-tools-version: 6.1
import PackageDescription

/// Dissector modules: each is its own target (`Sources/BLEDissector<Name>`, whose module type is
/// `<Name>Module`) and never imports another (they meet through tables). This is the one list of
/// them: `StandardModules.builtIn` is generated from it (Plugins/DissectorModules), so adding a
/// module is its folder (and its tests' folder) plus its name here.
let dissectors = ["HCI", "Advertising", "L2CAP", "ATT", "SMP", "Device", "LinkLayer", "AndroidVendor"]
/// The other modules each dissector's tests decode with: the layers beneath it, and those its
/// captures reach. A module without an entry is tested with all of them.
let testedWith: [String: [String]] = [
    "HCI": ["Advertising"],
    "Advertising": ["HCI"],
    "L2CAP": ["HCI"],
    "ATT": ["HCI", "L2CAP", "SMP"],
    "SMP": ["HCI", "L2CAP"],
    "Device": dissectors,
    "LinkLayer": ["Advertising", "L2CAP", "ATT", "SMP"],
]
/// Targets besides the core a dissector module needs: the link layer decrypts with the keys it
/// is given (docs/DECRYPTION.md); the device tracker resolves private addresses with IRKs.
let dissectorExtras: [String: [Target.Dependency]] = [
    "LinkLayer": ["BLECrypto", "BLEKeys", "BLECrack"],
    "Device": ["BLECrypto", "BLEKeys"],
]
let dissectorTargets: [Target] = dissectors.flatMap { name -> [Target] in
    [
        .target(
            name: "BLEDissector\(name)",
            dependencies: ["BLEInspectCore", "BLEAssignedNumbers"] + (dissectorExtras[name] ?? [])
        ),
        .testTarget(
            name: "BLEDissector\(name)Tests",
            dependencies: Array(Set([name] + (testedWith[name] ?? dissectors))).sorted().map {
                .target(name: "BLEDissector\($0)")
            }
                + ["BLEInspectCore", "BLEDissectorTestSupport", "BLECaptureTestSupport"] + (dissectorExtras[name] ?? [])
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
        // The pipeline as a library: sessions, capture opening and writing, rendering, views, runners.
        .library(
            name: "BLEInspect",
            targets: ["BLEInspectSession", "BLECaptureIO", "BLEInspectRender", "BLEInspectViews", "BLEInspectPipeline"]
        ),
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
        .package(url: "https://github.com/JohnSundell/Plot", exact: "0.14.0"),
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
        // OpenSSL's libcrypto: AES-128, AES-CCM and AES-CMAC. The only target that sees OpenSSL.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The Bluetooth security functions on libcrypto (docs/DECRYPTION.md): e, AES-CMAC, the
        // link layer's AES-CCM, c1, s1, ah, f4, f5, f6, g2, h6 and h7.
        .target(name: "BLECrypto", dependencies: ["BLEInspectCore", "CCrypto"]),
        // Keys to decrypt with: --ltk values, BlueZ info files, Android bt_config.conf and
        // bleinspect's key file; resolving private addresses with the IRKs among them.
        .target(name: "BLEKeys", dependencies: ["BLEInspectCore", "BLECrypto"]),
        // Legacy pairing's TK search (Just Works, then every passkey) on all cores.
        .target(name: "BLECrack", dependencies: ["BLECrypto"]),
        // Wireshark-style display filters, compiled once against the registry's field catalog.
        .target(name: "BLEInspectFilter", dependencies: ["BLEInspectCore"]),
        // User plugins: YAML profiles compiled into fields, layouts and bindings, registered
        // through the same RegistryBuilder as the built-in modules.
        .target(
            name: "BLEInspectPlugins",
            dependencies: ["BLEInspectCore", .product(name: "Yams", package: "Yams")]
        ),
        // Opening any capture (by its content) and writing any output format: the one door to the
        // capture formats for the commands.
        .target(name: "BLECaptureIO", dependencies: ["BLEInspectCore", "BLECapture", "BLECapturePcap"]),
        // What a run decodes with: the one list of built-in dissector modules, the `Toolkit` a
        // process builds once from them (plus a package's own), the `Session` of one run (its
        // registry, plugins, configuration and UUID names), the setup and exit statuses runs share.
        .target(
            name: "BLEInspectSession",
            dependencies: ["BLEInspectCore", "BLECapture", "BLEInspectFilter", "BLEInspectPlugins"]
                + dissectorDependencies,
            plugins: ["DissectorModules"]
        ),
        // Output formats of dissected frames (one-line, tree, hex, JSON, fields) behind
        // `FrameRendering`, which also says what of each tree a format reads.
        .target(name: "BLEInspectRender", dependencies: ["BLEInspectCore", "BLECapture", "BLEAssignedNumbers"]),
        // The views over the field model: gatt, conns and follow, and the scan that feeds them.
        .target(
            name: "BLEInspectViews",
            dependencies: [
                "BLEInspectCore", "BLECapture", "BLECaptureIO", "BLEInspectFilter", "BLEInspectSession",
                "BLEInspectRender", .product(name: "Plot", package: "Plot"),
            ]
        ),
        // The read and live pipeline: runners, the threaded reader, progress, resource usage.
        .target(
            name: "BLEInspectPipeline",
            dependencies: [
                "BLEInspectCore", "BLECapture", "BLECaptureIO", "BLECaptureLive", "BLEInspectFilter",
                "BLEInspectSession", "BLEInspectRender", "CCaptureShims",
            ]
        ),
        // The command line: every subcommand, and `BLEInspectTool.main(modules:)`, which runs it
        // with the built-in dissector modules plus a package's own.
        .target(
            name: "BLEInspectCLI",
            dependencies: [
                "BLEInspectCore", "BLECapture", "BLEInspectSession", "BLEInspectRender", "BLEInspectViews",
                "BLEInspectPipeline", "BLEInspectPlugins", "BLEDissectorAdvertising", "BLEAdvBudget",
                "BLEAdvBudgetCapture", "BLEAdvBudgetCommand", "BLEDissectorLinkLayer", "BLEDissectorDevice", "BLEKeys",
                "BLECaptureIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Fuzz targets for libFuzzer (scripts/fuzz, docs/ROBUSTNESS.md), the seed corpora and the
        // corrupted-capture sweep; the regression tests run the same targets.
        .target(
            name: "BLEInspectFuzz",
            dependencies: [
                "BLEInspectCore", "BLECapture", "BLECapturePcap", "BLECaptureLive", "BLECaptureIO", "BLEInspectFilter",
                "BLEInspectPlugins", "BLEInspectSession", "BLEInspectRender", "BLEAdvBudget", "BLETestVectors",
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
            dependencies: ["ExampleDissector", "BLEInspectCore", "BLEDissectorTestSupport", "BLECaptureTestSupport"]
                + dissectorDependencies
        ),
        // Advertising payload budgets: plans (YAML/JSON), platform profiles, layouts, findings and
        // their CI formats. No dissectors: captured adverts arrive as AD bytes.
        .target(
            name: "BLEAdvBudget",
            dependencies: ["BLEInspectCore", "BLEAssignedNumbers", .product(name: "Yams", package: "Yams")]
        ),
        // Captured adverts against the platform budgets (`adv-budget --capture`): reads the AD
        // bytes of a capture's advertising reports through a view scan.
        .target(
            name: "BLEAdvBudgetCapture",
            dependencies: ["BLEAdvBudget", "BLEInspectCore", "BLEInspectViews"]
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
        // Generates `StandardModules.builtIn`'s list from the dissector targets BLEInspectSession
        // depends on (`dissectors` above).
        .plugin(name: "DissectorModules", capability: .buildTool()),
        .plugin(
            name: "LintSource",
            capability: .command(
                intent: .custom(verb: "lint-source", description: "Run the toolchain's swift-format lint over Sources")
            )
        ),
        // Hex text to bytes and a deterministic random generator: test vectors for the fuzz
        // targets and the tests.
        .target(name: "BLETestVectors"),
        // What dissector tests need, on the dissector API alone: `DissectorStack` (the modules a
        // test target feeds), frame snapshots, `PDUFeeder`, paths, and running tshark.
        .target(
            name: "BLEDissectorTestSupport",
            dependencies: ["BLEInspectCore", "BLETestVectors"],
            path: "Tests/DissectorSupport"
        ),
        // Reading and writing whole captures in tests, and `MiniStack`, the stand-in lower layers.
        .target(
            name: "BLECaptureTestSupport",
            dependencies: ["BLEInspectCore", "BLECapture", "BLECaptureIO", "BLEDissectorTestSupport"],
            path: "Tests/CaptureSupport"
        ),
        // The tests of the whole tool: the built-in stack as `Dissect`, a test module, and both
        // supports above.
        .target(
            name: "BLEInspectTestSupport",
            dependencies: [
                "BLEInspectCore", "BLECapture", "BLEInspectSession", "BLEDissectorTestSupport", "BLECaptureTestSupport",
                "BLETestVectors",
            ],
            path: "Tests/Support"
        ),
        .testTarget(
            name: "BLECaptureTests",
            dependencies: ["BLECapture", "BLECapturePcap", "BLECaptureIO", "BLEInspectRender", "BLEInspectTestSupport"]
        ),
        .testTarget(
            name: "BLECaptureLiveTests",
            dependencies: [
                "BLECaptureLive", "BLECapture", "BLECaptureIO", "BLEInspectSession", "BLEInspectRender",
                "BLEInspectPipeline", "BLEInspectTestSupport", "bleinspect",
            ]
        ),
        .testTarget(name: "BLEAssignedNumbersTests", dependencies: ["BLEAssignedNumbers"]),
        .testTarget(name: "BLECryptoTests", dependencies: ["BLECrypto", "BLEInspectCore", "BLETestVectors"]),
        .testTarget(
            name: "BLECrackTests",
            dependencies: [
                "BLECrack", "BLECrypto", "BLEInspectCore", "BLETestVectors", "BLEDissectorTestSupport",
                "BLECaptureTestSupport",
            ]
        ),
        .testTarget(
            name: "BLEKeysTests",
            dependencies: ["BLEKeys", "BLECrypto", "BLEInspectCore", "BLETestVectors", "BLEDissectorTestSupport"]
        ),
        .testTarget(
            name: "BLEInspectFilterTests",
            dependencies: [
                "BLEInspectFilter", "BLEInspectSession", "BLEInspectRender", "BLEInspectPipeline",
                "BLEInspectTestSupport",
            ]
        ),
        .testTarget(
            name: "BLEInspectTests",
            dependencies: [
                "BLEInspectSession", "BLECaptureIO", "BLEInspectRender", "BLEInspectViews", "BLEInspectPipeline",
                "BLEAdvBudgetCapture", "BLEInspectCLI", "BLEInspectTestSupport", "BLEInspectFuzz", "bleinspect",
                // HelpTextTests renders every command's help.
                "BLEAdvBudgetCommand", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // ReportUnitTests renders report nodes.
                .product(name: "Plot", package: "Plot"),
            ]
                + dissectorDependencies
        ),
        .testTarget(
            name: "BLEInspectPluginsTests",
            dependencies: ["BLEInspectPlugins", "BLEInspectSession", "BLEInspectTestSupport", "bleinspect"],
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
