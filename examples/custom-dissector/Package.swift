// swift-tools-version: 6.1
import PackageDescription

/// A package that builds its own `bleinspect` with a dissector module of its own: the built-in
/// modules, plus `ThermoProbeDissector`.
let package = Package(
    name: "custom-dissector",
    products: [
        .executable(name: "my-bleinspect", targets: ["my-bleinspect"])
    ],
    dependencies: [
        // bleinspect, from this repository. In a package of your own, depend on its repository:
        // .package(url: "https://github.com/…/bleinspect", from: "0.1.0")
        .package(name: "bleinspect", path: "../..")
    ],
    targets: [
        // The dissector module: only the dissector API (`BLEInspectCore`), as the built-in
        // modules. bleinspect's root package also builds these sources (target
        // `ExampleDissector`) and tests them on its captures.
        .target(
            name: "ThermoProbeDissector",
            dependencies: [.product(name: "BLEInspectCore", package: "bleinspect")]
        ),
        // The executable: bleinspect's command line with the module added.
        .executableTarget(
            name: "my-bleinspect",
            dependencies: [
                "ThermoProbeDissector",
                .product(name: "BLEInspectCLI", package: "bleinspect"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
