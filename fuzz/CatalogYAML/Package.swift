// swift-tools-version: 6.1
// The YAML loaders' fuzz target (issue 18 item 1): built by scripts/fuzz.sh with
// `swift build -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address`, so the
// catalog loader, the QA rule reader and Yams with its C parser (libyaml) are all instrumented.
// A package of its own (laid out by fuzz.sh next to a copy of the repository named HandzAnalytics)
// because the sanitizer flags apply to every module of a build, and libFuzzer brings its own main.
import PackageDescription

let package = Package(
    name: "HandzCatalogFuzz",
    dependencies: [.package(path: "../HandzAnalytics", traits: ["Tools"])],
    targets: [
        .executableTarget(name: "catalog_yaml", dependencies: ["FuzzEntry", .product(name: "HandzCatalog", package: "HandzAnalytics")]),
        // `catalog_yaml_main`, which SwiftPM's link aliases `main` to: it runs libFuzzer's driver.
        .target(name: "FuzzEntry"),
    ],
    swiftLanguageModes: [.v6]
)
