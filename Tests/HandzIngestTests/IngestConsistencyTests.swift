import Foundation
import HandzAnalyticsCore
import HandzIngest
import HandzTestSupport
import Testing
@testable import HandzIngest

/// What the pipeline stores is consistent with what it checked: one canonical form for every UUID
/// (so deletion finds every event, issue 21 §4), and the catalog version of the catalog that
/// actually validated the batch (issue 21 §9).
@Suite struct IngestConsistencyTests {
    /// A synthetic user id written in upper case, as some clients send UUIDs.
    static let upperUser = "80B8DE51-5C1A-4E7B-9A2D-3F4E5A6B7C8D"
    static let upperInstall = "0F7C3A52-9D1E-4A8B-B6C2-5E4D3C2B1A09"
    static let upperSession = "2B6A9C1D-7E3F-4A5B-8C9D-0E1F2A3B4C5D"
    static let upperFlow = "0190A5E2-6C1D-7B3E-9F00-4C2A1B3D5E6F"

    static func upperCaseEvents() -> [String] {
        (0..<6).map { index in
            var event = EventBuilder(index % 2 == 0 ? "app_open" : "flow_saved_success", seed: UInt64(40 + index))
            event["user_id"] = upperUser
            event["user_state"] = "free"
            event["install_id"] = upperInstall
            event["session_id"] = upperSession
            if index % 2 == 1 { event.setProperty("flow_id", upperFlow) }
            return event.json
        }
    }

    @Test("upper-case UUIDs are stored lower-case: ids and uuid properties, one canonical form")
    func storedLowerCase() async throws {
        let fixture = try IngestServiceTests.Fixture()
        let answer = await fixture.send(Self.upperCaseEvents())
        #expect(answer.status == 200)
        #expect(IngestServiceTests.json(answer)["accepted"] as? Int == 6)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE user_id = '\(Self.upperUser.lowercased())'") == 6)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE install_id = '\(Self.upperInstall.lowercased())' AND session_id = '\(Self.upperSession.lowercased())'") == 6)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE json_extract(properties, '$.flow_id') = '\(Self.upperFlow.lowercased())'") == 3)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE user_id GLOB '*[A-F]*' OR install_id GLOB '*[A-F]*' OR session_id GLOB '*[A-F]*'") == 0)
    }

    @Test("an integer build_number (§3.2 string/int) is stored as its decimal text")
    func integerBuildNumberStoredAsText() async throws {
        let fixture = try IngestServiceTests.Fixture()
        var event = EventBuilder("app_open", seed: 61)
        event["build_number"] = 418
        let answer = await fixture.send([event.json])
        #expect(IngestServiceTests.json(answer)["accepted"] as? Int == 1)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE build_number = '418' AND typeof(build_number) = 'text'") == 1)
    }

    @Test("DELETE /v1/users/{id} with the id in upper or lower case de-identifies every event the user sent")
    func deletionMatchesAnyCase() async throws {
        for spelling in [Self.upperUser, Self.upperUser.lowercased()] {
            let fixture = try IngestServiceTests.Fixture()
            #expect(await fixture.send(Self.upperCaseEvents()).status == 200)
            let answer = await fixture.forgetUser(spelling)
            #expect(answer.status == 202)
            try await fixture.runDeletionWorker()
            #expect(try fixture.count("SELECT events_deidentified FROM deletion_requests WHERE state = 'completed'") == 6)
            #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE user_id IS NOT NULL") == 0)
        }
    }

    @Test("a catalog reload while a batch is in flight: the batch is validated and stored under one catalog")
    func reloadMidRequest() async throws {
        var before = RepositoryCatalog.catalog
        before.version = "test-before"
        // The reloaded catalog no longer has app_open: a batch validated by it would be rejected.
        var reloaded = RepositoryCatalog.catalog
        reloaded.version = "test-after"
        reloaded.events.removeAll { $0.name == "app_open" }
        let after = reloaded
        let fixture = try IngestServiceTests.Fixture()
        fixture.service.catalog.replace(with: before)
        fixture.service.afterCatalogTaken.withLock { $0 = { fixture.service.catalog.replace(with: after) } }
        let answer = await fixture.send([EventBuilder("app_open", seed: 77).json])
        fixture.service.afterCatalogTaken.withLock { $0 = nil }
        #expect(answer.status == 200)
        #expect(IngestServiceTests.json(answer)["accepted"] as? Int == 1)
        #expect(try fixture.count("SELECT COUNT(*) FROM events WHERE catalog_version = 'test-before'") == 1)
        // The reload took effect for the next batch.
        let next = await fixture.send([EventBuilder("app_open", seed: 78).json])
        #expect(IngestServiceTests.json(next)["accepted"] as? Int == 0)
    }
}
