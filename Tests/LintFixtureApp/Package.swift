// swift-tools-version: 6.1
// A stand-in for the Handz iOS app, built by HandzLintTests: it depends on this repository by
// path and runs the build-time analytics lint on its sources, the way the app does.
import PackageDescription

let package = Package(
    name: "LintFixtureApp",
    dependencies: [
        .package(name: "HandzAnalytics", path: "../.."),
    ],
    targets: [
        .target(
            name: "FixtureApp",
            plugins: [.plugin(name: "HandzLintPlugin", package: "HandzAnalytics")]
        ),
    ]
)
