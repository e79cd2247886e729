import Foundation
import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// `HandzRelease.version` (what `--version` prints) and CHANGELOG.md tell the same story
/// (CHANGELOG.md, "Versioning policy"): between releases the version is the next one with `-dev`
/// and the changelog has no heading for it yet; a release version is the changelog's newest.
@Suite struct ReleaseVersionTests {
    /// The changelog's version headings, newest first: `## 1.1.0 — date` gives [1, 1, 0].
    func releasedVersions() throws -> [[Int]] {
        let text = try String(contentsOf: RepositoryCatalog.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> [Int]? in
            guard line.hasPrefix("## "), let word = line.dropFirst(3).split(separator: " ").first else { return nil }
            let parts = word.split(separator: ".").compactMap { Int($0) }
            return parts.count == 3 ? parts : nil
        }
    }

    @Test("the version is the changelog's newest release, or the next one with -dev; the headings go newest first")
    func versionAgreesWithTheChangelog() throws {
        let released = try releasedVersions()
        try #require(!released.isEmpty)
        #expect(released == released.sorted { $0.lexicographicallyPrecedes($1) }.reversed(), "newest first")
        let isDevelopment = HandzRelease.version.hasSuffix("-dev")
        let version = HandzRelease.version.replacingOccurrences(of: "-dev", with: "").split(separator: ".").compactMap { Int($0) }
        try #require(version.count == 3, "semantic version")
        if isDevelopment {
            #expect(released[0].lexicographicallyPrecedes(version), "the version in development is after every release")
        } else {
            #expect(released[0] == version, "a release version has its changelog heading")
        }
    }
}
