import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzCatalogReleases
import HandzTestSupport
import Testing

/// `catalog diff` classifies each single change as addition, revision or breaking, and the
/// release lint demands the bump the heaviest change needs (docs/catalog-releases.md).
@Suite struct CatalogDiffTests {
    static let base = RepositoryCatalog.catalog

    /// One change applied to the shipped catalog, and the class it must get.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let expected: CatalogChangeClass
        let change: @Sendable (inout Catalog) -> Void
        var testDescription: String { name }
    }

    static func event(_ catalog: inout Catalog, _ name: String, _ edit: (inout EventDefinition) -> Void) {
        let index = catalog.events.firstIndex { $0.name == name }!
        edit(&catalog.events[index])
    }

    static func rule(_ catalog: inout Catalog, _ event: String, _ property: String, _ edit: (inout EventPropertyRule) -> Void) {
        self.event(&catalog, event) { definition in
            let index = definition.properties.firstIndex { $0.name == property }!
            edit(&definition.properties[index])
        }
    }

    static let cases: [Case] = [
        Case(name: "new event", expected: .addition) { catalog in
            catalog.events.append(EventDefinition(name: "app_theme_viewed", domain: "app", spec: "test"))
        },
        Case(name: "new placeholder event", expected: .revision) { catalog in
            catalog.events.append(EventDefinition(name: "app_theme_viewed", status: .placeholder, domain: "app", spec: "test"))
        },
        Case(name: "event removed", expected: .breaking) { catalog in catalog.events.removeAll { $0.name == "gate_attempt" } },
        Case(name: "event disabled", expected: .breaking) { catalog in event(&catalog, "gate_attempt") { $0.status = .placeholder } },
        Case(name: "event description", expected: .revision) { catalog in event(&catalog, "app_open") { $0.description += " More words." } },
        Case(name: "new optional property on an event", expected: .addition) { catalog in
            event(&catalog, "app_open") { $0.properties.append(EventPropertyRule(name: "surface", isRequired: false)) }
        },
        Case(name: "new required property on an event", expected: .breaking) { catalog in
            event(&catalog, "app_open") { $0.properties.append(EventPropertyRule(name: "surface", isRequired: true)) }
        },
        Case(name: "optional → required", expected: .breaking) { catalog in rule(&catalog, "screen_viewed", "entry_point") { $0.isRequired = true } },
        Case(name: "required → optional", expected: .addition) { catalog in rule(&catalog, "app_open", "launch_source") { $0.isRequired = false } },
        Case(name: "property removed from an event", expected: .breaking) { catalog in
            event(&catalog, "screen_viewed") { $0.properties.removeAll { $0.name == "previous_screen_name" } }
        },
        Case(name: "enum value added", expected: .addition) { catalog in catalog.properties["launch_source"]!.allowedValues!.append("widget") },
        Case(name: "enum value removed", expected: .breaking) { catalog in catalog.properties["launch_source"]!.allowedValues!.removeAll { $0 == "push" } },
        Case(name: "an event narrows a closed set further", expected: .breaking) { catalog in
            rule(&catalog, "app_open", "launch_source") { $0.allowedValues = ["direct"] }
        },
        Case(name: "type changed", expected: .breaking) { catalog in catalog.properties["alias_count"]!.type = .string },
        Case(name: "range widened", expected: .addition) { catalog in catalog.properties["alias_count"]!.maximum = 1_000 },
        Case(name: "range narrowed", expected: .breaking) { catalog in catalog.properties["alias_count"]!.minimum = 1 },
        Case(name: "format changed", expected: .breaking) { catalog in catalog.properties["screen_name"]!.format = .slug },
        Case(name: "property description", expected: .revision) { catalog in catalog.properties["alias_count"]!.description = "Changed words." },
        Case(name: "property disabled", expected: .breaking) { catalog in catalog.properties["variant"]!.isEnabled = false },
        Case(name: "placeholder property enabled", expected: .addition) { catalog in catalog.properties["experiment_id"]!.isEnabled = true },
        Case(name: "new common optional property", expected: .addition) { catalog in catalog.envelope.commonOptional.append("surface") },
        Case(name: "new required envelope field", expected: .breaking) { catalog in catalog.envelope.required.append("screen_name") },
        Case(name: "smaller event size limit", expected: .breaking) { catalog in catalog.limits.maxEventBytes = 16_384 },
        Case(name: "time zone removed", expected: .breaking) { catalog in catalog.timeZones.removeAll { $0 == "Europe/Paris" } },
        Case(name: "funnel window changed", expected: .breaking) { catalog in catalog.funnels[0].windowSeconds += 3_600 },
        Case(name: "funnel title changed", expected: .revision) { catalog in catalog.funnels[0].title += " (renamed)" },
        Case(name: "funnel added", expected: .addition) { catalog in
            var funnel = catalog.funnels[0]
            funnel.id = "F9"
            catalog.funnels.append(funnel)
        },
        Case(name: "kpi removed", expected: .breaking) { catalog in catalog.kpis.removeLast() },
        Case(name: "kpi written definition", expected: .revision) { catalog in catalog.kpis[0].definition.numerator += " (reworded)" },
        Case(name: "kpi window changed", expected: .breaking) { catalog in
            let index = catalog.kpis.firstIndex { $0.windowSeconds != nil }!
            catalog.kpis[index].windowSeconds! += 60
        },
        Case(name: "a version retired", expected: .revision) { catalog in catalog.retiredVersions = ["1.0.0"] },
    ]

    @Test("each single change gets its class, and the diff names nothing else", arguments: cases)
    func singleChange(_ testCase: Case) {
        var changed = Self.base
        testCase.change(&changed)
        let changes = CatalogDiff.changes(from: Self.base, to: changed)
        #expect(!changes.isEmpty, "no change found")
        #expect(CatalogDiff.required(changes) == testCase.expected, "\(changes)")
    }

    @Test("an unchanged catalog has no changes")
    func unchanged() {
        #expect(CatalogDiff.changes(from: Self.base, to: Self.base).isEmpty)
    }

    // MARK: The release lint

    /// A history holding the shipped catalog's rule files released as `version`.
    static func history(releasing version: String) -> CatalogReleaseHistory {
        var files = CatalogFiles.directory(RepositoryCatalog.directory).ruleFiles()
        files["catalog.yaml"] = files["catalog.yaml"]!.replacingOccurrences(of: "catalog_version: \"\(base.version)\"", with: "catalog_version: \"\(version)\"")
        return CatalogReleaseHistory(releases: [CatalogRelease(version: version, previous: nil, files: files)])
    }

    static func working(_ version: String, _ change: (inout Catalog) -> Void = { _ in }) -> Catalog {
        var catalog = base
        catalog.version = version
        change(&catalog)
        return catalog
    }

    static let here = CatalogLocation(file: "catalog.yaml", line: 16)

    @Test("a release is checked as exactly what it was: digest, version, chain")
    func integrity() {
        let history = Self.history(releasing: "1.3.0")
        #expect(history.integrityProblems().isEmpty, "\(history.integrityProblems())")
        var edited = history.releases[0]
        edited.files["properties.yaml"]! += "\n# an edit after release\n"
        let problems = CatalogReleaseHistory(releases: [edited]).integrityProblems()
        #expect(problems.map(\.message).contains { $0.contains("does not match its recorded sha256") }, "\(problems)")
        // A second release must name the first by its digest.
        let next = CatalogRelease(version: "1.4.0", previous: nil, files: history.releases[0].files)
        #expect(!CatalogReleaseHistory(releases: [history.releases[0], next]).integrityProblems().isEmpty)
    }

    @Test("catalog lint fails an under-bumped version and passes the right bump, naming the deciding change")
    func bumps() throws {
        let history = Self.history(releasing: "1.3.0")
        let removeValue: (inout Catalog) -> Void = { $0.properties["launch_source"]!.allowedValues!.removeAll { $0 == "push" } }
        let addValue: (inout Catalog) -> Void = { $0.properties["launch_source"]!.allowedValues!.append("widget") }
        let reword: (inout Catalog) -> Void = { $0.properties["alias_count"]!.description = "Changed words." }

        // Breaking: minor is not enough, major is.
        let underBumped = history.bumpProblems(working: Self.working("1.4.0", removeValue), at: Self.here)
        #expect(underBumped.count == 1)
        #expect(try #require(underBumped.first).message.contains("property launch_source: values removed: push"))
        #expect(history.bumpProblems(working: Self.working("2.0.0", removeValue), at: Self.here).isEmpty)
        // Addition: patch is not enough, minor is (and so is major).
        #expect(history.bumpProblems(working: Self.working("1.3.1", addValue), at: Self.here).count == 1)
        #expect(history.bumpProblems(working: Self.working("1.4.0", addValue), at: Self.here).isEmpty)
        #expect(history.bumpProblems(working: Self.working("2.0.0", addValue), at: Self.here).isEmpty)
        // Revision: any bump, but a bump.
        #expect(history.bumpProblems(working: Self.working("1.3.0", reword), at: Self.here).count == 1)
        #expect(history.bumpProblems(working: Self.working("1.3.1", reword), at: Self.here).isEmpty)
        // Unchanged at the released version, and never older than the newest release.
        #expect(history.bumpProblems(working: Self.working("1.3.0"), at: Self.here).isEmpty)
        #expect(history.bumpProblems(working: Self.working("1.2.9"), at: Self.here).count == 1)
    }

    @Test("the shipped releases are intact and the working catalog is bumped as its changes require")
    func shippedReleases() {
        let history = CatalogReleaseHistory.read(catalogDirectory: RepositoryCatalog.directory)
        #expect(!history.releases.isEmpty)
        #expect(history.integrityProblems().isEmpty, "\(history.integrityProblems())")
        #expect(CatalogReleaseHistory.fileNameProblems(catalogDirectory: RepositoryCatalog.directory).isEmpty)
        #expect(history.bumpProblems(working: Self.base, at: Self.here).isEmpty)
    }

    @Test("versions parse strictly and order numerically", arguments: ["1.3.0", "10.0.1", "0.0.0"])
    func versionParsing(_ text: String) {
        #expect(CatalogVersion(text)?.description == text)
    }

    @Test("not versions", arguments: ["1.3", "1.3.0.1", "v1.3.0", "01.3.0", "1.-3.0", "1.3.0 ", "", "1..0", "1234567.0.0"])
    func notVersions(_ text: String) {
        #expect(CatalogVersion(text) == nil)
    }

    @Test("1.10.0 is newer than 1.9.0; bumps are named by the part that went up")
    func ordering() throws {
        let old = try #require(CatalogVersion("1.9.0"))
        #expect(old < (try #require(CatalogVersion("1.10.0"))))
        #expect(CatalogVersion("2.0.0")?.bump(from: old) == .major)
        #expect(CatalogVersion("1.10.0")?.bump(from: old) == .minor)
        #expect(CatalogVersion("1.9.1")?.bump(from: old) == .patch)
        #expect(CatalogVersion("1.9.0")?.bump(from: old) == nil)
    }
}
