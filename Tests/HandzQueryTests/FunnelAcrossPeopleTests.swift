import HandzAnalyticsCore
import HandzQuery
import HandzTestSupport
import Testing

/// Hand-computed fixtures for funnels across people (HandzQuery docs, "Funnels across people") on the
/// catalog's F2: the sender's tap and link (steps 1–2), then receivers — other installs opening
/// the link (3), receiving (4) and saving (5) its import — and the success, the receiver's own
/// new flow. Run through the chain walk and the SQLite SQL on a real store file, and through the
/// reference that tries every chain.
@Suite struct FunnelAcrossPeopleTests {
    static let second: Int64 = 1_000
    static let base: Int64 = 1_772_323_200_000 + 3_600_000  // 2026-03-01T01:00:00Z
    static let f2 = RepositoryCatalog.catalog.funnels.first { $0.id == "F2" }!

    func check(_ events: [FixtureEvent], _ expected: [FunnelKey: FunnelValue], window: Int64? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let query = FunnelQuery(funnel: Self.f2, fromMs: Self.base - 3_600_000, toMs: Self.base + 86_400_000, windowMs: window)
        let store = try FixtureStore(events)
        defer { store.remove() }
        #expect(try store.funnel(query) == expected, "walk and SQL", sourceLocation: sourceLocation)
        #expect(ReferenceFunnel.run(events, query) == expected, "reference", sourceLocation: sourceLocation)
    }

    static func key(_ step: Int) -> FunnelKey { FunnelKey(bucket: nil, step: step) }
    static func value(_ actors: Int64, _ median: Int64? = nil, links: Int64 = 0) -> FunnelValue {
        FunnelValue(actors: actors, medianMs: median, links: links)
    }

    /// The sender's tap at `at` and link `link` one second later.
    static func sender(_ install: String, link: String, at time: Int64, ids: (UInt8, UInt8)) -> [FixtureEvent] {
        [FixtureEvent(id: ids.0, name: "share_link_create_tapped", timeMs: time, install: install),
         FixtureEvent(id: ids.1, name: "share_link_created", timeMs: time + second, install: install, properties: ["share_link_id": "\"\(link)\""])]
    }

    static func opened(_ install: String, link: String, at time: Int64, id: UInt8) -> FixtureEvent {
        FixtureEvent(id: id, name: "share_link_opened", timeMs: time, install: install, properties: ["share_link_id": "\"\(link)\""])
    }

    static func received(_ install: String, link: String, importID: String, at time: Int64, id: UInt8) -> FixtureEvent {
        FixtureEvent(id: id, name: "import_received", timeMs: time, install: install,
                     properties: ["share_link_id": "\"\(link)\"", "import_id": "\"\(importID)\""])
    }

    static func saved(_ install: String, importID: String, newFlow: String, at time: Int64, id: UInt8) -> FixtureEvent {
        FixtureEvent(id: id, name: "import_saved_to_library_success", timeMs: time, install: install,
                     properties: ["import_id": "\"\(importID)\"", "new_flow_id": "\"\(newFlow)\""])
    }

    static func ownFlow(_ install: String, flow: String, at time: Int64, id: UInt8) -> FixtureEvent {
        FixtureEvent(id: id, name: "flow_saved_success", timeMs: time, install: install, properties: ["flow_id": "\"\(flow)\""])
    }

    @Test("a receiver who imports a link twice: the chain through the import that was saved; success only by a flow other than the imported one")
    func importsTwice() throws {
        let t = Self.base, s = Self.second
        let events = Self.sender("a", link: "L1", at: t, ids: (1, 2)) + [
            Self.opened("b", link: "L1", at: t + 10 * s, id: 3),
            Self.received("b", link: "L1", importID: "M1", at: t + 20 * s, id: 4),   // never saved
            Self.received("b", link: "L1", importID: "M2", at: t + 30 * s, id: 5),
            Self.saved("b", importID: "M2", newFlow: "W9", at: t + 40 * s, id: 6),
            Self.ownFlow("b", flow: "W9", at: t + 50 * s, id: 7),                      // the imported flow again: not success
            Self.ownFlow("b", flow: "W5", at: t + 60 * s, id: 8),                      // their own: success
        ]
        try check(events, [
            Self.key(1): Self.value(1), Self.key(2): Self.value(1, s, links: 1),
            Self.key(3): Self.value(1, 9 * s, links: 1), Self.key(4): Self.value(1, 20 * s, links: 1),
            Self.key(5): Self.value(1, 10 * s, links: 1), Self.key(6): Self.value(1, 20 * s, links: 1),
        ])
    }

    @Test("a link opened by its own sender is no reception; two receivers of one link count twice and the link once")
    func selfOpensAndTwoReceivers() throws {
        let t = Self.base, s = Self.second
        let events = Self.sender("a", link: "L1", at: t, ids: (1, 2)) + Self.sender("z", link: "L2", at: t, ids: (20, 21)) + [
            Self.opened("a", link: "L1", at: t + 5 * s, id: 3),                        // the sender testing their link
            Self.received("a", link: "L1", importID: "M0", at: t + 6 * s, id: 4),
            Self.opened("b", link: "L1", at: t + 10 * s, id: 5),
            Self.received("b", link: "L1", importID: "M1", at: t + 12 * s, id: 6),
            Self.opened("c", link: "L1", at: t + 30 * s, id: 7),
            Self.opened("c", link: "L1", at: t + 31 * s, id: 8),                       // a second open: one reception
            Self.opened("z", link: "L2", at: t + 40 * s, id: 22),                      // L2: only its sender opens it
        ]
        try check(events, [
            Self.key(1): Self.value(2), Self.key(2): Self.value(2, s, links: 2),
            // Receptions b (9 s after the link) and c (29 s): lower median 9 s.
            Self.key(3): Self.value(2, 9 * s, links: 1), Self.key(4): Self.value(1, 2 * s, links: 1),
        ])
    }

    @Test("ties: an open at the link's own millisecond counts (two devices' clocks); a receiver's import at its open's millisecond counts only after it in event_id order")
    func sameMillisecond() throws {
        let t = Self.base, s = Self.second
        let events = Self.sender("a", link: "L1", at: t, ids: (0x50, 0x51)) + [
            Self.opened("b", link: "L1", at: t + s, id: 0x10),                         // same ms as the link, smaller id: counts
            Self.received("b", link: "L1", importID: "M1", at: t + s, id: 0x05),      // same ms as b's open, sorts before it: not after
            Self.opened("c", link: "L1", at: t + s, id: 0x60),
            Self.received("c", link: "L1", importID: "M2", at: t + s, id: 0x70),      // same ms, sorts after: counts, 0 ms
        ]
        try check(events, [
            Self.key(1): Self.value(1), Self.key(2): Self.value(1, s, links: 1),
            Self.key(3): Self.value(2, 0, links: 1), Self.key(4): Self.value(1, 0, links: 1),
        ])
    }

    @Test("the window runs from the sender's entry: a save after it does not count, nor does an open before the link")
    func windowFromSendersEntry() throws {
        let t = Self.base, s = Self.second
        let events = Self.sender("a", link: "L1", at: t, ids: (1, 2)) + [
            Self.opened("b", link: "L1", at: t + 10 * s, id: 3),
            Self.received("b", link: "L1", importID: "M1", at: t + 20 * s, id: 4),
            Self.saved("b", importID: "M1", newFlow: "W1", at: t + 61 * s, id: 5),    // entry + 61 s: outside a 60 s window
            Self.opened("c", link: "L1", at: t, id: 6),                               // before the link was created
        ]
        try check(events, [
            Self.key(1): Self.value(1), Self.key(2): Self.value(1, s, links: 1),
            Self.key(3): Self.value(1, 9 * s, links: 1), Self.key(4): Self.value(1, 10 * s, links: 1),
        ], window: 60 * s)
    }
}
