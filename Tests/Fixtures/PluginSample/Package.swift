// swift-tools-version: 6.1
// A sample app package that uses bleinspect's command plugin, as an app's own package would:
//   swift package check-advertising --format github
// .ci/run runs it; the advert below has a name that iOS cuts, so the check fails with
// ios.name.truncated at Sources/Beacon/Advertiser.swift:13.
import PackageDescription

let package = Package(
    name: "PluginSample",
    dependencies: [.package(path: "../../..")],
    targets: [.target(name: "Beacon")]
)
