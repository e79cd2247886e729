// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "HandzAnalytics",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "HandzAnalyticsCore", targets: ["HandzAnalyticsCore"]),
        .library(name: "HandzCatalog", targets: ["HandzCatalog"]),
        // The iOS client: add this product to the app target.
        .library(name: "HandzAnalyticsClient", targets: ["HandzAnalyticsClient"]),
        .library(name: "HandzQuery", targets: ["HandzQuery"]),
        .executable(name: "handz-analytics", targets: ["HandzAnalyticsCLI"]),
        // The build-time lint (CH33 §8.1, §13): the engine, its tool, and the two SwiftPM plugins
        // an app adds (`plugins: [.plugin(name: "HandzLintPlugin", package: "HandzAnalytics")]`).
        .library(name: "HandzLint", targets: ["HandzLint"]),
        .executable(name: "handz-lint", targets: ["handz-lint"]),
        .plugin(name: "HandzLintPlugin", targets: ["HandzLintPlugin"]),
        .plugin(name: "HandzLintCommand", targets: ["HandzLintCommand"]),
    ],
    // Package traits (SE-0450) keep an app that uses only the client from resolving the server's
    // and the tools' packages: every target dependency on them is conditioned on a trait, and
    // SwiftPM resolves a package only when an enabled trait uses it. This package's own builds
    // enable both (the default); an app adds it with `traits: []` (client only: swift-crypto and
    // swift-asn1 are resolved, and linked on Linux only — Apple platforms use CryptoKit) or
    // `traits: ["Tools"]` (client and the lint plugin). SwiftPM 6.2 or later prunes this way (HandzAnalyticsClient docs,
    // "The first hour"); examples/ConsumerApp holds it to the budget.
    traits: [
        .trait(name: "Tools", description: "The catalog tools and the build-time lint: Yams, swift-syntax, swift-argument-parser."),
        .trait(name: "Server", description: "The ingestion server, the stores and the CLI: Hummingbird, SwiftNIO, PostgresNIO, metrics, logging.", enabledTraits: ["Tools"]),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc
        // (scripts/docs.sh). No target depends on it, so an app never resolves it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // The build-time lint parses Swift with the compiler's own parser.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "602.0.0"),
        // Server side only (trait Server); the core and the client never depend on these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.9.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
    ],
    targets: [
        // The pure core: catalog model, compiled lookup tables, the byte-level validator,
        // PII lint, batch envelope parsing. Foundation only, no I/O — the iOS client builds on it.
        .target(name: "HandzAnalyticsCore"),
        // Catalog tooling: reads `catalog/` (YAML), lints it, exports JSON Schema and docs.
        .target(
            name: "HandzCatalog",
            dependencies: ["HandzAnalyticsCore", "HandzQuery", "HandzQA", .product(name: "Yams", package: "Yams", condition: .when(traits: ["Tools"]))]
        ),
        // Catalog releases (docs/catalog-releases.md): the released snapshots in catalog/releases/,
        // their integrity, every change between two catalogs classified, the version bump it needs.
        .target(name: "HandzCatalogReleases", dependencies: ["HandzAnalyticsCore", "HandzCatalog", "HandzSigning"]),
        // Analytics QA as code (CH33 §8.2, §13): sequence rules over a captured stream. Pure.
        .target(name: "HandzQA", dependencies: ["HandzAnalyticsCore"]),
        // Synthetic, catalog-driven event generation: valid examples and an invalid corpus.
        .target(name: "HandzSynthetic", dependencies: ["HandzAnalyticsCore"]),

        // System libraries (Debian: libsqlite3-dev, zlib1g-dev; Apple SDKs ship both).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // sync_file_range(2) for the column store's write-behind (glibc's symbol; header only).
        .systemLibrary(name: "CWriteBehind", path: "Sources/CWriteBehind"),
        // mallopt(3) for the command line's allocator tuning (glibc's symbol; header only).
        .systemLibrary(name: "CAllocator", path: "Sources/CAllocator"),
        // A small SQLite wrapper shared by the server store and the on-device queue.
        .target(name: "HandzSQLite", dependencies: [.target(name: "CSQLite", condition: .when(platforms: [.linux]))]),
        // Gzip with hard limits, shared by server and client.
        .target(name: "HandzCompression", dependencies: ["CZlib"]),
        // The HZ2-HMAC-SHA256 request signature (HZ1 for older app builds) and the keys file, shared by server and client.
        .target(
            name: "HandzSigning",
            dependencies: [.product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: [.linux]))]
        ),
        // The offline queue client for the iOS app: Foundation, SQLite, zlib, the core and the
        // signature only — no server package. `Generated/` comes from `handz-analytics codegen swift`,
        // `PrivacyInfo.xcprivacy` from `handz-analytics codegen privacy-manifest`.
        .target(
            name: "HandzAnalyticsClient",
            dependencies: ["HandzAnalyticsCore", "HandzSQLite", "HandzCompression", "HandzSigning"],
            // Apple's privacy manifest, generated from the catalog (`handz-analytics codegen privacy-manifest`).
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        // The event store: schema, migrations, group-commit writer, quarantine, privacy operations.
        .target(name: "HandzStore", dependencies: ["HandzAnalyticsCore", "HandzSQLite", "HandzSigning"]),
        // The event lake: hourly gzip NDJSON partitions with manifests, exported from either store.
        .target(name: "HandzLake", dependencies: ["HandzAnalyticsCore", "HandzStore", "HandzCompression", "HandzSigning"]),
        // Keeping the privacy promises on every copy (issue 14): the deletion worker and retention.
        .target(name: "HandzLifecycle", dependencies: ["HandzStore", "HandzLake"]),
        // The shared store for several ingest nodes: PostgreSQL through postgres-nio.
        .target(
            name: "HandzPostgresStore",
            dependencies: [
                "HandzAnalyticsCore", "HandzStore", "HandzSigning",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
            ]
        ),
        // The ingestion pipeline without HTTP: limits, signature check, rate limits, validation, receipts.
        .target(
            name: "HandzIngest",
            dependencies: [
                "HandzAnalyticsCore", "HandzStore", "HandzSigning", "HandzCompression",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
            ]
        ),
        // The HTTP server (Hummingbird 2) around HandzIngest, with Prometheus metrics and graceful shutdown.
        .target(
            name: "HandzServer",
            dependencies: [
                "HandzIngest", "HandzCatalog", "HandzCatalogReleases", "HandzPostgresStore", "HandzLake", "HandzLifecycle", "HandzSigning",
                "HandzAnalysis", "HandzColumnStore", "HandzDashboards", "HandzQuery", "HandzSQLite", "HandzStore",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
            ]
        ),
        // The funnel and KPI SQL builders (CH33 §5): definitions and parameters in, SQL text out for
        // six dialects. Pure: no I/O, Foundation-free.
        .target(name: "HandzQuery", dependencies: ["HandzAnalyticsCore"]),
        // Runs the builders' SQL on the embedded SQLite store and assembles the reports.
        .target(name: "HandzAnalysis", dependencies: ["HandzQuery", "HandzSQLite", "HandzStore"]),
        // The embedded store's column engine (issue 33): immutable chunks per event and UTC day,
        // sorted by install and time, zstd-compressed, published through one manifest; sealed
        // from the SQLite log, and the funnel walk on them.
        .target(name: "HandzColumnStore", dependencies: ["HandzAnalyticsCore", "HandzQuery", "HandzSQLite", "HandzStore", "CZstd", "CZlib",
                                                        .target(name: "CWriteBehind", condition: .when(platforms: [.linux]))]),
        // The CH33 §7 dashboards: the static HTML/SVG report and the Grafana export. Pure: the
        // numbers come in from HandzAnalysis, the SQL from HandzQuery; text out, no I/O.
        .target(name: "HandzDashboards", dependencies: ["HandzAnalyticsCore", "HandzQuery"]),
        // The build-time lint engine: walks app sources parsed by swift-syntax and checks every
        // analytics call against the catalog and the PII rules (CH33 §1, §8.1, §13).
        .target(
            name: "HandzLint",
            dependencies: [
                "HandzAnalyticsCore", "HandzCatalog",
                .product(name: "Yams", package: "Yams", condition: .when(traits: ["Tools"])),
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Tools"])),
                .product(name: "SwiftParser", package: "swift-syntax", condition: .when(traits: ["Tools"])),
            ]
        ),
        // The tool the lint plugins run; small on purpose, since every app build compiles it.
        .executableTarget(
            name: "handz-lint",
            dependencies: ["HandzLint", "HandzCatalog", "HandzAnalyticsCore", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))],
            path: "lint/Tool"
        ),
        // The SwiftPM build tool plugin: fails an app target's build on lint errors.
        .plugin(name: "HandzLintPlugin", capability: .buildTool(), dependencies: ["handz-lint"], path: "lint/Plugins/HandzLintPlugin"),
        // `swift package handz-lint [--target NAME] [--status]`: the same lint on demand.
        .plugin(
            name: "HandzLintCommand",
            capability: .command(intent: .custom(verb: "handz-lint", description: "Lint analytics calls against the Handz catalog and PII rules")),
            dependencies: ["handz-lint"],
            path: "lint/Plugins/HandzLintCommand"
        ),
        .executableTarget(
            name: "HandzAnalyticsCLI",
            dependencies: [
                "HandzAnalyticsCore", "HandzCatalog", "HandzCatalogReleases", "HandzSynthetic", "HandzStore", "HandzIngest", "HandzServer", "HandzSigning", "HandzLint",
                "HandzAnalyticsClient", "HandzQuery", "HandzAnalysis", "HandzColumnStore", "HandzLake", "HandzLifecycle", "HandzPostgresStore", "HandzDashboards", "HandzQA",
                .target(name: "CAllocator", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
            ]
        ),
        // Helpers shared by the test targets: the repository catalog, event builders, process runner.
        .target(name: "HandzTestSupport", dependencies: ["HandzAnalyticsCore", "HandzCatalog", "HandzSynthetic", "HandzSigning", "HandzCompression"]),
        // Throughput benchmarks (release mode); figures go to BENCHMARKS.md.
        .executableTarget(
            name: "handz-bench",
            dependencies: ["HandzAnalyticsCore", "HandzCatalog", "HandzStore", "HandzColumnStore", "HandzAnalyticsClient", "HandzSigning", "HandzLint", "HandzSynthetic", "HandzQA", "HandzIngest"],
            path: "Benchmarks/HandzBench"
        ),
        // The ingestion load generator: signed gzip batches over many loopback connections.
        .executableTarget(
            name: "handz-load",
            dependencies: [
                "HandzSynthetic", "HandzCatalog", "HandzSigning", "HandzCompression",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Server"])),
            ],
            path: "Benchmarks/HandzLoad"
        ),
        .testTarget(name: "HandzAnalyticsCoreTests", dependencies: ["HandzAnalyticsCore", "HandzSynthetic", "HandzTestSupport"]),
        .testTarget(name: "HandzCatalogTests", dependencies: ["HandzCatalog", "HandzCatalogReleases", "HandzSynthetic", "HandzTestSupport"]),
        .testTarget(name: "HandzAnalyticsCLITests", dependencies: ["HandzAnalyticsCLI", "HandzSynthetic", "HandzSQLite", "HandzTestSupport"]),
        .testTarget(
            name: "HandzAnalyticsClientTests",
            dependencies: ["HandzAnalyticsClient", "HandzAnalyticsCLI", "HandzCatalog", "HandzSQLite", "HandzTestSupport", "HandzIngest"]
        ),
        .testTarget(name: "HandzStoreTests", dependencies: [
            "HandzStore", "HandzPostgresStore", "HandzQuery", "HandzSQLite", "HandzLake", "HandzLifecycle", "HandzCompression", "HandzSigning", "HandzTestSupport",
            .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])), .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
        ]),
        // Lint rules one by one, the CLI, and a fixture app built with the plugin (Tests/LintFixtureApp).
        .testTarget(name: "HandzLintTests", dependencies: ["HandzLint", "HandzTestSupport", "HandzAnalyticsCLI"]),
        .testTarget(
            name: "HandzQueryTests",
            dependencies: ["HandzQuery", "HandzAnalysis", "HandzColumnStore", "HandzStore", "HandzSQLite", "HandzSynthetic", "HandzTestSupport"]
        ),
        .testTarget(
            name: "HandzColumnStoreTests",
            dependencies: ["HandzColumnStore", "HandzCatalog", "HandzQuery", "HandzAnalysis", "HandzStore", "HandzSQLite", "HandzSynthetic", "HandzTestSupport"]
        ),
        .testTarget(name: "HandzQATests", dependencies: ["HandzQA", "HandzCatalog", "HandzSynthetic", "HandzTestSupport", "HandzSQLite", "HandzAnalyticsCLI"]),
        .testTarget(
            name: "HandzDashboardsTests",
            dependencies: ["HandzDashboards", "HandzAnalysis", "HandzCatalog", "HandzSQLite", "HandzStore", "HandzIngest", "HandzSynthetic", "HandzTestSupport"]
        ),
        .testTarget(
            name: "HandzIngestTests",
            dependencies: ["HandzIngest", "HandzServer", "HandzStore", "HandzLifecycle", "HandzLake", "HandzSQLite", "HandzSigning", "HandzCompression", "HandzTestSupport", "HandzAnalyticsCLI", "HandzCatalogReleases",
                           "HandzPostgresStore", "HandzColumnStore", .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
                           .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
                           .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"]))]
        ),
    ],
    swiftLanguageModes: [.v6]
)
