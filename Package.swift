// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "HandzAnalytics",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "HandzAnalyticsCore", targets: ["HandzAnalyticsCore"]),
        .library(name: "HandzCatalog", targets: ["HandzCatalog"]),
        .executable(name: "handz-analytics", targets: ["HandzAnalyticsCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // The pure core: catalog model, compiled lookup tables, the byte-level validator,
        // PII lint. Foundation only, no I/O — the iOS client builds on it.
        .target(name: "HandzAnalyticsCore"),
        // Catalog tooling: reads `catalog/` (YAML), lints it, exports JSON Schema and docs.
        .target(
            name: "HandzCatalog",
            dependencies: ["HandzAnalyticsCore", .product(name: "Yams", package: "Yams")]
        ),
        // Synthetic, catalog-driven event generation: valid examples and an invalid corpus.
        .target(name: "HandzSynthetic", dependencies: ["HandzAnalyticsCore"]),
        .executableTarget(
            name: "HandzAnalyticsCLI",
            dependencies: [
                "HandzAnalyticsCore", "HandzCatalog", "HandzSynthetic",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Helpers shared by the test targets: the repository catalog, event builders.
        .target(name: "HandzTestSupport", dependencies: ["HandzAnalyticsCore", "HandzCatalog", "HandzSynthetic"]),
        // Throughput benchmarks (release mode); figures go to BENCHMARKS.md.
        .executableTarget(name: "handz-bench", dependencies: ["HandzAnalyticsCore", "HandzCatalog"], path: "Benchmarks/HandzBench"),
        .testTarget(name: "HandzAnalyticsCoreTests", dependencies: ["HandzAnalyticsCore", "HandzSynthetic", "HandzTestSupport"]),
        .testTarget(name: "HandzCatalogTests", dependencies: ["HandzCatalog", "HandzSynthetic", "HandzTestSupport"]),
        .testTarget(name: "HandzAnalyticsCLITests", dependencies: ["HandzAnalyticsCLI", "HandzSynthetic", "HandzTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
