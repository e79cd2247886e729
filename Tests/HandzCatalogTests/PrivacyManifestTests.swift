import Foundation
import HandzCatalog
import HandzTestSupport
import Testing

/// The Apple privacy classification in the catalog and what is generated from it (issue 23):
/// the client's PrivacyInfo.xcprivacy and the App Store Connect answers.
@Suite struct PrivacyManifestTests {
    static let manifestPath = "Sources/HandzAnalyticsClient/PrivacyInfo.xcprivacy"
    static let reportPath = "docs/app-store-privacy.md"

    /// The repository's catalog rule files, to change in memory.
    static func repositoryFiles() -> [String: String] {
        CatalogFiles.directory(RepositoryCatalog.directory).ruleFiles()
    }

    static func load(_ files: [String: String]) -> LoadedCatalog {
        CatalogLoader.load(.memory(files), label: "test")
    }

    static func committed(_ path: String) throws -> String {
        try String(contentsOf: RepositoryCatalog.root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("the committed manifest and App Store answers are what the catalog gives")
    func committedOutputsAreCurrent() throws {
        let loaded = try CatalogLoader.load(directory: RepositoryCatalog.directory)
        #expect(try Self.committed(Self.manifestPath) == PrivacyManifestWriter.manifest(loaded.collectedData),
                "regenerate: swift run handz-analytics codegen privacy-manifest")
        #expect(try Self.committed(Self.reportPath) == PrivacyReportWriter.report(loaded.collectedData, catalogVersion: loaded.catalog.version),
                "regenerate: swift run handz-analytics catalog privacy-report")
    }

    @Test("the manifest is a property list with only the keys and values Apple documents")
    func manifestIsAValidPropertyList() throws {
        let data = Data(try Self.committed(Self.manifestPath).utf8)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(Set(plist.keys) == ["NSPrivacyTracking", "NSPrivacyTrackingDomains", "NSPrivacyCollectedDataTypes", "NSPrivacyAccessedAPITypes"])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        #expect((plist["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        let types = try #require(plist["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        #expect(!types.isEmpty)
        for entry in types {
            #expect(Set(entry.keys) == ["NSPrivacyCollectedDataType", "NSPrivacyCollectedDataTypeLinked",
                                        "NSPrivacyCollectedDataTypeTracking", "NSPrivacyCollectedDataTypePurposes"])
            #expect(CollectedDataPolicy.appleDataTypes[entry["NSPrivacyCollectedDataType"] as? String ?? ""] != nil)
            #expect(entry["NSPrivacyCollectedDataTypeLinked"] is Bool)
            #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false)
            let purposes = try #require(entry["NSPrivacyCollectedDataTypePurposes"] as? [String])
            #expect(!purposes.isEmpty && purposes.allSatisfy { CollectedDataPolicy.applePurposes[$0] != nil })
        }
        let apis = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        #expect(apis.count == RequiredReasonAPIs.clientUses.count)
    }

    @Test("a property added to the catalog without an Apple data type fails catalog lint")
    func unclassifiedPropertyFailsLint() throws {
        var files = Self.repositoryFiles()
        #expect(CatalogLinter.lint(Self.load(files)).filter { $0.severity == .error }.isEmpty)
        files["properties.yaml"]! += "  rounds_count: {type: integer, minimum: 0, maximum: 100, spec: \"CH33 §6\"}\n"
        let problems = CatalogLinter.lint(Self.load(files)).map(\.message)
        #expect(problems.contains("property 'rounds_count' has no Apple data type: add it to collected_data in privacy.yaml (issue 23)"))
    }

    @Test("tracking, an unknown type or purpose, and a property classified twice are refused")
    func badClassificationsFailLint() throws {
        var files = Self.repositoryFiles()
        let privacy = files["privacy.yaml"]!
        files["privacy.yaml"] = privacy.replacingOccurrences(of: "  NSPrivacyCollectedDataTypeUserID:\n    linked: true\n    tracking: false",
                                                             with: "  NSPrivacyCollectedDataTypeUserID:\n    linked: true\n    tracking: true")
            + "  NSPrivacyCollectedDataTypeShoeSize:\n    linked: false\n    tracking: false\n    purposes: [NSPrivacyCollectedDataTypePurposeFun]\n    why: \"x\"\n    properties: [user_id]\n"
        let problems = CatalogLinter.lint(Self.load(files)).map(\.message)
        #expect(problems.contains("collected_data.NSPrivacyCollectedDataTypeUserID: tracking must be false (CH33 §1, §2)"))
        #expect(problems.contains("collected_data: 'NSPrivacyCollectedDataTypeShoeSize' is not one of Apple's collected data types"))
        #expect(problems.contains("collected_data.NSPrivacyCollectedDataTypeShoeSize: 'NSPrivacyCollectedDataTypePurposeFun' is not one of Apple's purposes"))
        #expect(problems.contains("collected_data: 'user_id' is classified twice (NSPrivacyCollectedDataTypeUserID, NSPrivacyCollectedDataTypeShoeSize)"))
    }

    @Test("a catalog change that adds a collected data type changes the manifest and the report, so the drift check fails until they are regenerated")
    func newDataTypeChangesOutputs() throws {
        var files = Self.repositoryFiles()
        // network_state moves from Other Diagnostic Data to a type of its own.
        let privacy = files["privacy.yaml"]!
        #expect(privacy.contains("      - network_state\n"))
        files["privacy.yaml"] = privacy.replacingOccurrences(of: "      - network_state\n", with: "")
            + "  NSPrivacyCollectedDataTypeOtherUsageData:\n    linked: true\n    tracking: false\n"
            + "    purposes: [NSPrivacyCollectedDataTypePurposeAnalytics]\n    why: \"test\"\n    properties: [network_state]\n"
        let changed = Self.load(files)
        #expect(CatalogLinter.lint(changed).filter { $0.severity == .error }.isEmpty)
        let manifest = PrivacyManifestWriter.manifest(changed.collectedData)
        let report = PrivacyReportWriter.report(changed.collectedData, catalogVersion: changed.catalog.version)
        #expect(manifest.contains("<string>NSPrivacyCollectedDataTypeOtherUsageData</string>"))
        #expect(report.contains("| Other Usage Data | Yes | Yes | No | Analytics | 1 |"))
        #expect(try manifest != Self.committed(Self.manifestPath))
        #expect(try report != Self.committed(Self.reportPath))
    }
}

/// The client's required-reason API audit (issue 23): if its code, or a module it links, starts
/// using a file timestamp, the boot time, disk space, user defaults or the active keyboards, the
/// manifest must declare it with a reason — this fails until `RequiredReasonAPIs.clientUses` does.
@Suite struct RequiredReasonAPITests {
    static let clientModules = ["HandzAnalyticsClient", "HandzAnalyticsCore", "HandzSQLite", "HandzCompression", "HandzSigning"]

    @Test("every required-reason API the client's sources use is declared in its manifest")
    func auditHolds() throws {
        var used: [String: Set<String>] = [:]
        for module in Self.clientModules {
            let folder = RepositoryCatalog.root.appendingPathComponent("Sources/\(module)")
            let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            var scanned = 0
            for case let file as URL in files where file.pathExtension == "swift" {
                scanned += 1
                let text = try String(contentsOf: file, encoding: .utf8)
                    .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
                for category in RequiredReasonAPIs.categories {
                    for symbol in category.symbols where text.contains(symbol) {
                        used[category.key, default: []].insert("\(module)/\(file.lastPathComponent): \(symbol)")
                    }
                }
            }
            #expect(scanned > 0, "no sources found for \(module)")
        }
        for (category, places) in used {
            #expect(RequiredReasonAPIs.clientUses[category] != nil, "undeclared \(category): \(places.sorted())")
        }
    }

    @Test("the scan sees a required-reason API when one is there")
    func scanFindsSymbols() {
        let sample = "let defaults = UserDefaults.standard; let up = ProcessInfo.processInfo.systemUptime"
        let found = RequiredReasonAPIs.categories.filter { $0.symbols.contains { sample.contains($0) } }.map(\.key)
        #expect(found == ["NSPrivacyAccessedAPICategorySystemBootTime", "NSPrivacyAccessedAPICategoryUserDefaults"])
    }
}
