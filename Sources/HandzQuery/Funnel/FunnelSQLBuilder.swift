import HandzAnalyticsCore

/// Writes the SQL of one funnel run for one dialect. Pure: values in, SQL text out.
///
/// The query returns one row per (breakdown value, step reached by at least one actor):
/// `breakdown` (text, NULL without `--breakdown` and for the null bucket), `step` (1-based),
/// `actors` (actors whose reported chain reaches the step) and `median_ms` (the lower median of
/// the integer milliseconds between step k−1 and step k over those chains; NULL for step 1).
/// Conversions are ratios of these integers, computed by ``FunnelReport``.
///
/// How the greedy chain is computed with window functions only — no correlated subqueries
/// (ClickHouse and Spark lack them) and no joins of events to events (whose plans differ most
/// between engines): the
/// funnel's events in [from, to + window) are ordered per actor by (event_time_ms, event_id),
/// and n − 1 running `MIN` windows, from the last step back to step 2, give every row the times
/// of the greedy chain that starts after it (see the passes below). An entry's chain is the one
/// after its own row; it ends at the first step later than entry + window. Each step starts
/// strictly after the previous step's row, so one event never fills two steps. Linear in the
/// actor's events, where a join of entries to later events would be quadratic.
public struct FunnelSQLBuilder {
    public let catalog: Catalog
    public let dialect: SQLDialect

    public init(catalog: Catalog, dialect: SQLDialect) {
        self.catalog = catalog
        self.dialect = dialect
    }

    public func sql(_ query: FunnelQuery) throws(QueryError) -> String {
        var ctes = try eventCTEs(query)
        let count = query.funnel.steps.count
        let success = query.funnel.successCondition
        if query.funnel.handoffIndex != nil {
            // Across people: rk(bd, lvl, t1…tn, tx, r = 1) per sender chain and per receiver.
            ctes += try linkedChainCTEs(query)
        } else if query.funnel.order == .any {
            ctes += anyOrderChainCTEs(query)
        } else {
            // One row per actor with an entry, its reported chain: rk(actor, bd, lvl, t1…tn, tx,
            // r = 1), tx the success event's time or NULL.
            // A chain per actor and id (F4's plan) is a running-window partition; ClickHouse's
            // per-actor arrays have no such partition, so it runs the windows too — and for the
            // modes of issue 35 (strict order, exclusions, per entry day), which its arrays do not
            // carry.
            let arrays = dialect == .clickhouse && query.funnel.chainKey == nil && FunnelModes.isPlain(query)
            ctes += arrays ? clickHouseChainCTEs(query) : windowChainCTEs(query)
        }
        // One row per (chain, step reached), the success as step n + 1: rk is read once (engines
        // that inline CTEs, such as ClickHouse, would otherwise compute the chains once per step).
        let rows = count + (success == nil ? 0 : 1)
        let stepNumbers = (1...rows).map { "SELECT \($0) AS step" }.joined(separator: " UNION ALL ")
        var delta = "CASE"
        for k in stride(from: 2, through: count, by: 1) { delta += " WHEN sn.step = \(k) THEN t\(k) - t\(k - 1)" }
        if let success { delta += " WHEN sn.step = \(count + 1) THEN tx - t\(success.afterStep)" }
        delta += " END"
        let reached = success == nil ? "sn.step <= rk.lvl" : "(sn.step <= rk.lvl OR (sn.step = \(count + 1) AND rk.tx IS NOT NULL))"
        // rk.lo: the first step a row counts for (a receiver's row starts at the hand-off);
        // rk.kind: 1 for a counted chain, 0 for a row that only counts its link (lk).
        ctes.append("""
        dl AS (
          SELECT rk.bd AS bd, sn.step AS step, \(dialect.castInteger(delta)) AS d, rk.kind AS kind, rk.lk AS lk
          FROM rk CROSS JOIN (\(stepNumbers)) sn
          WHERE rk.r = 1 AND sn.step >= rk.lo AND \(reached)
        )
        """)
        if dialect == .clickhouse && query.funnel.handoffIndex == nil {
            return "WITH\n" + ctes.joined(separator: ",\n") + "\n" + Self.clickHouseMedianSelect + dialect.querySuffix
        }
        ctes.append(MedianSQL.rankedCTE(name: "md", source: "dl", partition: "bd, step, kind", value: "d", carrying: ["lk"]))
        let median = "MAX(CASE WHEN kind = 1 AND (r * 2 = n OR r * 2 = n + 1) THEN d END)"
        return "WITH\n" + ctes.joined(separator: ",\n") + "\n"
            + "SELECT bd AS breakdown, step, COALESCE(MAX(CASE WHEN kind = 1 THEN n END), 0) AS actors, \(median) AS median_ms, COUNT(DISTINCT lk) AS links\n"
            + "FROM md\nGROUP BY bd, step\nORDER BY step" + dialect.querySuffix
    }

    /// The portable chain assembly of a single-actor funnel: running windows only (see the
    /// type's documentation).
    func windowChainCTEs(_ query: FunnelQuery) -> [String] {
        windowChainCTEs(query, steps: query.funnel.steps.count, source: "ev", prefix: "", linkPosition: false)
    }

    /// The running-window chains of the first `count` steps, read from `source`, as CTEs named
    /// `{prefix}p{k}`, `{prefix}px`, `{prefix}ch` and `{prefix}rk`. With `linkPosition` (the
    /// sender side of a funnel across people) `source` has a `pos` column (the event's place in
    /// its actor's order) and each entry's `ch` row gets `ph`, the place of its chain's step
    /// `count` event — carried like a step time, since it too only grows as the row moves later.
    /// The success condition applies to whole single-actor funnels only.
    func windowChainCTEs(_ query: FunnelQuery, steps count: Int, source first: String, prefix: String, linkPosition: Bool) -> [String] {
        var ctes: [String] = []
        let window = String(query.windowMs)
        let from = String(query.fromMs), to = String(query.toMs)
        // Pass k (from the last step down to step 2) adds, per row r, f{k}_j for j = k…n: the time
        // of step j on the greedy chain of steps k…n that starts strictly after r. Step k's event
        // is the first step-k row after r, and since every f{k+1}_j only grows as its row moves
        // later (a later start never gives an earlier chain), f{k}_j is the MIN of f{k+1}_j over
        // the step-k rows after r — one running window, in reverse order so the frame starts at
        // UNBOUNDED PRECEDING and every engine aggregates it incrementally.
        // With a chain key (F4: one plan per chain), the step passes run per (actor, ck): a
        // chain only takes events carrying its entry's id. The success stays the actor's (gx).
        let keyed = !linkPosition && query.funnel.chainKey != nil
        let actorAfter = "OVER (PARTITION BY actor ORDER BY t DESC, id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
        // Strict order (issue 35 §3): step k's event must be the row right after r, so the frame
        // is that one row (in reverse order, the row before) and no pass drops a row: every
        // event of the actor is a row, and any of them between two steps ends the chain.
        let strict = !linkPosition && query.funnel.order == .strict
        let frame = strict ? "ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING" : "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"
        let after = "OVER (PARTITION BY actor\(keyed ? ", ck" : "") ORDER BY t DESC, id DESC \(frame))"
        let exclusions = linkPosition ? [] : query.funnel.exclusions
        var rowColumns = ["actor", "t", "id", "bd"] + (keyed ? ["ck"] : [])
        let stepColumns = (1...count).map { "s\($0)" }
        var source = first
        var carried: [String] = []
        // Exclusions: each row's place in its actor's order (pos) and, per exclusion i, the place
        // of the first excluded event strictly after it (x{i}); the passes then carry, like step
        // times (they too only grow as the row moves later), the places of the chain's steps
        // (p{j}) and the first excluded place after each watched step (x{i}_{g}). An entry's
        // chain is dropped when x{i}_{g} < p{g+1} for a gap g it reached.
        let watchedPlaces = Set(exclusions.flatMap { ($0.fromStep + 1)...$0.toStep })
        let watchedGaps = exclusions.enumerated().flatMap { index, exclusion in (exclusion.fromStep..<exclusion.toStep).map { (index + 1, $0) } }
        if !exclusions.isEmpty {
            let flags = (1...exclusions.count).map { "e\($0)" }
            let success = query.funnel.successCondition == nil ? [] : ["sx"]
            ctes.append("""
            \(prefix)pz0 AS (
              SELECT \((rowColumns + stepColumns + success + flags).joined(separator: ", ")),
                     ROW_NUMBER() OVER (PARTITION BY actor ORDER BY t, id) AS pos
              FROM \(first)
            )
            """)
            let places = flags.map { "MIN(CASE WHEN \($0) = 1 THEN pos END) \(actorAfter) AS x\($0.dropFirst())" }
            ctes.append("""
            \(prefix)pz AS (
              SELECT \((rowColumns + stepColumns + success + ["pos"] + places).joined(separator: ", "))
              FROM \(prefix)pz0
            )
            """)
            source = "\(prefix)pz"
            rowColumns += ["pos"] + (1...exclusions.count).map { "x\($0)" }
        }
        // The success after step s: gx is the time of the first success event strictly after each
        // row (one more running window, before the step passes drop the success-only rows); at
        // pass s the chain's step-s event takes its gx, and passes s−1…2 carry it back like a
        // step time (gx, too, only grows as its row moves later). tx is then the entry's.
        let successStep = linkPosition ? nil : query.funnel.successCondition?.afterStep
        if successStep != nil {
            ctes.append("""
            \(prefix)px AS (
              SELECT \((rowColumns + stepColumns).joined(separator: ", ")),
                     MIN(CASE WHEN sx = 1 THEN t END) \(actorAfter) AS gx
              FROM \(source)
            )
            """)
            source = "\(prefix)px"
        }
        for k in stride(from: count, through: 2, by: -1) {
            var columns = rowColumns + stepColumns[0..<(k - 1)] + carried
            columns.append("MIN(CASE WHEN s\(k) = 1 THEN t END) \(after) AS f\(k)_\(k)")
            for j in stride(from: k + 1, through: count, by: 1) {
                columns.append("MIN(CASE WHEN s\(k) = 1 THEN f\(k + 1)_\(j) END) \(after) AS f\(k)_\(j)")
            }
            if linkPosition {
                columns.append(k == count ? "MIN(CASE WHEN s\(k) = 1 THEN pos END) \(after) AS f\(k)_p"
                                          : "MIN(CASE WHEN s\(k) = 1 THEN f\(k + 1)_p END) \(after) AS f\(k)_p")
            }
            if watchedPlaces.contains(k) { columns.append("MIN(CASE WHEN s\(k) = 1 THEN pos END) \(after) AS f\(k)_p\(k)") }
            for j in watchedPlaces.sorted() where j > k {
                columns.append("MIN(CASE WHEN s\(k) = 1 THEN f\(k + 1)_p\(j) END) \(after) AS f\(k)_p\(j)")
            }
            for (exclusion, gap) in watchedGaps where gap >= k {
                let value = gap == k ? "x\(exclusion)" : "f\(k + 1)_x\(exclusion)_\(gap)"
                columns.append("MIN(CASE WHEN s\(k) = 1 THEN \(value) END) \(after) AS f\(k)_x\(exclusion)_\(gap)")
            }
            if let successStep {
                if k > successStep { columns.append("gx") }
                if k == successStep { columns.append("MIN(CASE WHEN s\(k) = 1 THEN gx END) \(after) AS f\(k)_x") }
                if k < successStep { columns.append("MIN(CASE WHEN s\(k) = 1 THEN f\(k + 1)_x END) \(after) AS f\(k)_x") }
            }
            // Only rows that pass k reads (step k) or that still start or continue a chain
            // (steps 1…k−1) go on.
            let needed = (1...k).map { "s\($0) = 1" }.joined(separator: " OR ")
            ctes.append("""
            \(prefix)p\(k) AS (
              SELECT \(columns.joined(separator: ",\n         "))
              FROM \(source)\(source == first || strict ? "" : "\n  WHERE \(needed)")
            )
            """)
            carried = (k...count).map { "f\(k)_\($0)" } + (successStep.map { k <= $0 } == true ? ["f\(k)_x"] : []) + (linkPosition ? ["f\(k)_p"] : [])
                + watchedPlaces.sorted().filter { $0 >= k }.map { "f\(k)_p\($0)" }
                + watchedGaps.filter { $0.1 >= k }.map { "f\(k)_x\($0.0)_\($0.1)" }
            source = "\(prefix)p\(k)"
        }
        // One row per entry: step j's time is f2_j (the chain after the entry); the level is the
        // last step whose time is within the window (times only grow along a chain, so every
        // earlier step is within it too, and the first step outside it ends the chain).
        var level = "CASE"
        for j in stride(from: count, through: 2, by: -1) {
            level += " WHEN f2_\(j) <= t + \(window) THEN \(j)"
        }
        level = count == 1 ? "1" : level + " ELSE 1 END"
        var chainColumns = ["actor", "t", "id", "bd", "t AS t1"]
        for j in stride(from: 2, through: count, by: 1) { chainColumns.append("f2_\(j) AS t\(j)") }
        chainColumns.append("\(level) AS lvl")
        if let successStep {
            // Times only grow along a chain, so the chain reaches step s when step s is within
            // the window; the success must be within it too.
            let reachesStep = successStep == 1 ? "" : "f2_\(successStep) <= t + \(window) AND "
            let time = successStep == 1 ? "gx" : "f2_x"
            chainColumns.append("CASE WHEN \(reachesStep)\(time) <= t + \(window) THEN \(time) END AS tx")
        } else {
            chainColumns.append("\(dialect.nullInteger) AS tx")
        }
        if linkPosition { chainColumns.append(count == 1 ? "pos AS ph" : "f2_p AS ph") }
        // An entry whose chain reached step g + 1 with an excluded event before it (and after
        // step g) is dropped; the chain reaches g + 1 when that step is within the window.
        let dropped = watchedGaps.map { exclusion, gap in
            let excluded = gap == 1 ? "x\(exclusion)" : "f2_x\(exclusion)_\(gap)"
            return "(f2_\(gap + 1) <= t + \(window) AND \(excluded) < f2_p\(gap + 1))"
        }
        let kept = dropped.isEmpty ? "" : " AND (CASE WHEN \(dropped.joined(separator: " OR ")) THEN 1 ELSE 0 END) = 0"
        ctes.append("""
        \(prefix)ch AS (
          SELECT \(chainColumns.joined(separator: ", "))
          FROM \(source)
          WHERE s1 = 1 AND t >= \(from) AND t < \(to)\(kept)
        )
        """)
        let times = (1...count).map { "t\($0)" }.joined(separator: ", ")
        // Conversion over time: one funnel per (actor, entry day), the day carried as bd.
        let chainsOf = !linkPosition && query.byEntryDay ? "actor, bd" : "actor"
        ctes.append("""
        \(prefix)rk AS (
          SELECT actor, bd, lvl, \(times), tx, 1 AS lo, 1 AS kind, \(dialect.nullInteger) AS lk,
                 ROW_NUMBER() OVER (PARTITION BY \(chainsOf) ORDER BY lvl DESC, t, id) AS r
          FROM \(prefix)ch
        )
        """)
        return ctes
    }

    /// The funnel's events, unordered, one row each: `actor`, `t` (event_time_ms), `id`
    /// (event_id), `bd` (the breakdown value or NULL) and `s1`…`sn` (1 when the event matches
    /// step k, else 0) — what ``FunnelEvaluator`` reads on the embedded store.
    ///
    /// `successOnAnyEvent` false: a success on any event (F1's) is flagged only on the funnel's
    /// own events, which are all the query reads — for a reader that finds the other success
    /// events per actor itself (``successFilter(_:)``; the embedded store's funnel walk).
    public func eventsSQL(_ query: FunnelQuery, successOnAnyEvent: Bool = true) throws(QueryError) -> String {
        let steps = ((1...query.funnel.steps.count).map { "s\($0)" } + (query.funnel.successCondition == nil ? [] : ["sx"])
            + query.funnel.exclusions.indices.map { "e\($0 + 1)" } + Self.valueColumns(query.funnel)).joined(separator: ", ")
        return "WITH\n" + (try eventCTEs(query, successOnAnyEvent: successOnAnyEvent)).joined(separator: ",\n")
            + "\nSELECT actor, t, id, bd, \(steps) FROM ev" + dialect.querySuffix
    }

    /// The text columns ``eventsSQL(_:successOnAnyEvent:)`` returns after the flags, in order: a
    /// funnel across people's linked ids (`v_…`, ``linkProperties(_:)``), a keyed funnel's chain
    /// key (`ck`, `FunnelDefinition.chainKey`), or none — what ``FunnelEvaluator`` takes as an
    /// event's `values`.
    public static func valueColumns(_ funnel: FunnelDefinition) -> [String] {
        if funnel.handoffIndex != nil { return linkProperties(funnel).map { "v_\($0)" } }
        return funnel.chainKey == nil ? [] : ["ck"]
    }

    /// The condition (on a row of `events` aliased `e`) of a success on any event that is none of
    /// the funnel's step events: F1's `user_state IN ('free') AND event_name NOT IN (…steps)`.
    /// Nil when the funnel's success names its events (they are step-like: ``eventsSQL(_:successOnAnyEvent:)`` reads them).
    public func successFilter(_ funnel: FunnelDefinition) throws(QueryError) -> String? {
        guard let success = funnel.successCondition, success.events.isEmpty else { return nil }
        let access = PropertyAccess(catalog: catalog, dialect: dialect)
        let names = funnel.steps.flatMap(\.events)
        return "\(try access.matches(events: [], filters: success.filters)) AND e.event_name NOT IN \(try dialect.literalList(Array(Set(names)).sorted()))"
    }

    /// The source's CTEs, then `ev`: the funnel's events in [from, to + window) with the actor,
    /// the breakdown value and one 0/1 column per step (filters evaluated by the engine).
    func eventCTEs(_ query: FunnelQuery, successOnAnyEvent: Bool = true) throws(QueryError) -> [String] {
        guard (2...FunnelDefinition.maxSteps).contains(query.funnel.steps.count) else {
            throw .invalidFunnel("\(query.funnel.id) has \(query.funnel.steps.count) steps; a funnel has 2 to \(FunnelDefinition.maxSteps)")
        }
        guard query.fromMs < query.toMs else { throw .invalidRange("from must be before to") }
        guard query.windowMs > 0 else { throw .invalidWindow }
        try FunnelModes.check(query)
        let access = PropertyAccess(catalog: catalog, dialect: dialect)
        let from = String(query.fromMs)
        let horizon = String(query.toMs &+ query.windowMs)
        var ctes: [String] = try query.source.leadingCTEs(dialect)
        let actor: String
        if query.actor == .user {
            ctes.append(ActorResolution.userMapCTE(dialect))
            actor = "COALESCE(um.um_user, e.install_id)"
        } else {
            actor = "e.install_id"
        }
        let breakdown = try query.breakdown.map { name throws(QueryError) in
            try checkBreakdown(name, funnel: query.funnel)
            return try access.text(name)
        } ?? (query.byEntryDay ? dialect.castText(dialect.integerDivision("e.event_time_ms", "86400000")) : dialect.nullText)

        var flags: [String] = []
        var names: [String] = []
        for (index, step) in query.funnel.steps.enumerated() {
            var match = try access.matches(events: step.events, filters: step.filters)
            // A keyed funnel's later step needs the id its chain is keyed by (a missing id never links).
            if query.funnel.chainKey != nil, index > 0, let link = step.link { match += " AND \(try access.text(link.property)) IS NOT NULL" }
            flags.append("CASE WHEN \(match) THEN 1 ELSE 0 END AS s\(index + 1)")
            for name in step.events where !names.contains(name) { names.append(name) }
        }
        for (index, exclusion) in query.funnel.exclusions.enumerated() {
            flags.append("CASE WHEN \(try access.matches(events: exclusion.events, filters: exclusion.filters)) THEN 1 ELSE 0 END AS e\(index + 1)")
            for name in exclusion.events where !names.contains(name) { names.append(name) }
        }
        var selected = "e.event_name IN \(try dialect.literalList(names))"
        var firstByEvents: [String]?
        if let success = query.funnel.successCondition {
            let match = try access.matches(events: success.events, filters: success.filters)
            if let property = success.firstBy {
                // Flagged first (sx0), over all time up to the horizon; sx below keeps the first per value.
                let value = try access.text(property)
                flags.append("CASE WHEN \(match) AND \(value) IS NOT NULL THEN 1 ELSE 0 END AS sx0")
                flags.append("\(value) AS fv")
                firstByEvents = success.events
            } else {
                flags.append("CASE WHEN \(match) THEN 1 ELSE 0 END AS sx")
            }
            for name in success.events where !names.contains(name) { names.append(name) }
            // A success on any event (F1: user_state = free) reads every event its filter keeps.
            selected = success.events.isEmpty && successOnAnyEvent
                ? "(e.event_name IN \(try dialect.literalList(names)) OR \(match))" : "e.event_name IN \(try dialect.literalList(names))"
        }
        // Strict order: every event of the actor is a row, since any of them breaks a chain.
        if query.funnel.order == .strict { selected = "1 = 1" }
        flags += try linkColumns(query.funnel, access)
        if let key = query.funnel.chainKey {
            var cases: [String] = []
            for (event, property) in key { cases.append("WHEN e.event_name = \(try dialect.literal(event)) THEN \(try access.text(property))") }
            flags.append("CASE \(cases.joined(separator: " ")) END AS ck")
        }
        let join = query.actor == .user ? " LEFT JOIN um ON um.um_install = e.install_id" : ""
        guard let firstByEvents else {
            ctes.append("""
            ev AS (
              SELECT \(actor) AS actor, e.event_time_ms AS t, e.event_id AS id, \(breakdown) AS bd,
                     \(flags.joined(separator: ",\n         "))
              FROM events e\(join)
              WHERE \(selected)
                AND e.event_time_ms >= \(from) AND e.event_time_ms < \(horizon)
            )
            """)
            return ctes
        }
        // `first_by` (F2: a flow's first save): the success events are read from the start of the
        // data, so that a save's rank among the actor's saves of the same value (`fr`) is over all
        // stored data; only rows in [from, to + window) go on, as without it.
        let row = ["actor", "t", "id", "bd"] + (1...query.funnel.steps.count).map { "s\($0)" } + query.funnel.exclusions.indices.map { "e\($0 + 1)" }
        let values = Self.valueColumns(query.funnel)
        ctes.append("""
        ev AS (
          SELECT \((row + ["CASE WHEN sx0 = 1 AND fr = 1 THEN 1 ELSE 0 END AS sx"] + values).joined(separator: ", "))
          FROM (
            SELECT \((row + values + ["sx0"]).joined(separator: ", ")),
                   ROW_NUMBER() OVER (PARTITION BY actor, sx0, fv ORDER BY t, id) AS fr
            FROM (
              SELECT \(actor) AS actor, e.event_time_ms AS t, e.event_id AS id, \(breakdown) AS bd,
                     \(flags.joined(separator: ",\n             "))
              FROM events e\(join)
              WHERE \(selected)
                AND (e.event_time_ms >= \(from) OR e.event_name IN \(try dialect.literalList(firstByEvents)))
                AND e.event_time_ms < \(horizon)
            ) x
          ) y
          WHERE t >= \(from)
        )
        """)
        return ctes
    }

    /// Breakdowns are restricted to closed sets, so the only values a funnel prints are catalog
    /// values (CH33 §1: no free text leaves the store), and to properties step 1 carries.
    public func checkBreakdown(_ name: String, funnel: FunnelDefinition) throws(QueryError) {
        try PropertyAccess.checkIdentifier(name)
        // The release dimensions: every event carries them, and their values are as few as the
        // releases (docs/catalog-releases.md, "Analysis across versions").
        if EventsTable.versionColumns.contains(name) { return }
        guard let definition = catalog.properties[name] else { throw .invalidBreakdown("\(name) is not a catalogued property") }
        guard definition.closedValues != nil else {
            throw .invalidBreakdown("\(name) is not a closed set (enum or boolean); only those may be broken down")
        }
        if EventsTable.envelopeColumns.contains(name) { return }
        let carried = funnel.steps.first?.events.contains { eventName in
            guard let event = catalog.event(named: eventName) else { return false }
            return catalog.allowedProperties(of: event).contains { $0.name == name }
        } ?? false
        guard carried else { throw .invalidBreakdown("no step-1 event of \(funnel.id) carries \(name)") }
    }
}
