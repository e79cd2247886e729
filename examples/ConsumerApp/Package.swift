// swift-tools-version: 6.1
// An app's view of Handz Analytics (issue 23): a package whose only target uses the client, added
// the way the iOS guide says — `traits: []`, so none of the server's or the tools' packages are
// resolved. scripts/check-consumer.sh lays this out next to a copy of the repository named
// `HandzAnalytics` (as an app's checkout would be named), holds the resolved packages to the
// budget the client's guide states (HandzAnalyticsClient documentation, article *The first hour*:
// 2 besides this package), builds it, and has it send a batch to a real server. Its typed events
// are generated into the app (`Sources/ConsumerApp/Analytics`, `codegen swift --for-app`), as an
// app that pins its catalog version holds them.
import PackageDescription

let package = Package(
    name: "ConsumerApp",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(path: "../HandzAnalytics", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "ConsumerApp",
            dependencies: [
                .product(name: "HandzAnalyticsClient", package: "HandzAnalytics"),
                // The catalog type of the app's own generated snapshot (Sources/ConsumerApp/Analytics).
                .product(name: "HandzAnalyticsCore", package: "HandzAnalytics"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
