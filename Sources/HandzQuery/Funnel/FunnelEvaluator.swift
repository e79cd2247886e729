import HandzAnalyticsCore

/// Computes a funnel's result rows from the funnel's events — the same ``FunnelRow``s, by the
/// same rules (``FunnelQuery``), as the SQL of ``FunnelSQLBuilder``. Pure: rows in, rows out.
///
/// Why it exists: on the embedded SQLite store the SQL needs one sort per step (its running
/// windows), about 3 s per million events each; this reads the funnel's events once, in any
/// order (`FunnelSQLBuilder/eventsSQL(_:)`), groups them by actor, and walks each actor's
/// chains in memory — linear in the events after a per-actor sort. `handz-analytics funnel --db`
/// uses it; `sql funnel --dialect sqlite` prints the SQL, and the tests and the engine-agreement
/// check hold the two to the same numbers.
///
/// Memory: 40 bytes per funnel event in the range, in one flat array (no array per actor: an
/// append per event is then a store, not two uniqueness checks and a small array's growth), plus
/// one name per actor. ``report()`` groups the events by actor once (a counting sort, each
/// actor's events then sorted in place) and walks one actor at a time.
public struct FunnelEvaluator: Sendable {
    public let query: FunnelQuery
    let stepCount: Int
    /// The success condition's bit in ``Event/steps`` (bit n), when the funnel has one.
    let successBit: UInt32?
    /// Interned breakdown values: an event stores an index, not a string (−1: null).
    var breakdownValues: [String] = []
    var breakdownIndex: [String: Int32] = [:]
    /// The actors in order of first sight, and each one's number.
    var actorNames: [String] = []
    var actorNumbers: [String: Int32] = [:]
    /// Every event added, in the order added (``Event/actor`` says whose).
    var events: [Event] = []
    /// Funnels across people: each event's linked ids (``FunnelSQLBuilder/linkProperties(_:)``
    /// order); keyed funnels: its chain key (``FunnelSQLBuilder/valueColumns(_:)``). Indexed by
    /// ``Event/values``.
    var values: [[String?]] = []

    /// One funnel event: its place in the total order and the steps it matches (bit k−1: step k;
    /// bit n: the success condition). Public so a reader that groups the events by actor itself
    /// can hand them over whole (``adopt(actorNames:events:)``).
    public struct Event: Sendable {
        @usableFromInline var timeMs: Int64
        @usableFromInline var idHigh: UInt64
        @usableFromInline var idLow: UInt64
        @usableFromInline var steps: UInt32
        @usableFromInline var breakdown: Int32
        /// Index into ``FunnelEvaluator/values``; −1 in single-actor funnels without a chain key.
        @usableFromInline var values: Int32 = -1
        /// The actor's number (``FunnelEvaluator/actorNumber(_:)``).
        @usableFromInline var actor: Int32 = 0

        @usableFromInline init(timeMs: Int64, idHigh: UInt64, idLow: UInt64, steps: UInt32, breakdown: Int32, values: Int32 = -1, actor: Int32 = 0) {
            (self.timeMs, self.idHigh, self.idLow, self.steps, self.breakdown, self.values, self.actor) = (timeMs, idHigh, idLow, steps, breakdown, values, actor)
        }

        /// An event with no breakdown value and no linked values, of actor number `actor`.
        @inlinable public init(actor: Int32, timeMs: Int64, eventID: UUIDWords, steps: UInt32) {
            self.init(timeMs: timeMs, idHigh: eventID.high, idLow: eventID.low, steps: steps, breakdown: -1, actor: actor)
        }

        /// The total order of CH33 analysis: (event_time_utc, event_id), the id compared as bytes.
        @inlinable public static func before(_ a: Event, _ b: Event) -> Bool {
            if a.timeMs != b.timeMs { return a.timeMs < b.timeMs }
            if a.idHigh != b.idHigh { return a.idHigh < b.idHigh }
            return a.idLow < b.idLow
        }
    }

    /// Takes a funnel's events already grouped by actor — actor n named `actorNames[n]`, its
    /// events together, in the total order (``Event/before(_:_:)``), actors in number order —
    /// as they are, with no copy: for a reader that groups them itself (the column store's count
    /// by actor). Only on an evaluator with no events yet, for events with no breakdown value and
    /// no linked values; events added after it are sorted in as usual.
    public mutating func adopt(actorNames names: [String], events grouped: [Event]) {
        precondition(events.isEmpty && actorNames.isEmpty, "adopt(actorNames:events:) on an evaluator that has events")
        actorNames = names
        events = grouped
    }

    public init(query: FunnelQuery) {
        self.query = query
        stepCount = query.funnel.steps.count
        successBit = query.funnel.successCondition == nil ? nil : UInt32(1) << UInt32(query.funnel.steps.count)
    }

    /// Adds one event of the funnel. `eventID` is the stored event_id (16 bytes; the tie-break,
    /// compared as bytes like SQLite compares BLOBs); `steps` has bit k−1 set when the event
    /// matches step k and bit n when it matches the success condition; `breakdown` is the
    /// breakdown property's value (nil without a breakdown, or when the event lacks it); `values`,
    /// in a funnel across people, the event's linked ids (``FunnelSQLBuilder/linkProperties(_:)``).
    public mutating func add(actor: String, timeMs: Int64, eventID: [UInt8], steps: UInt32, breakdown: String?, values linked: [String?] = []) {
        let id = eventID.withUnsafeBytes { UUIDWords(orderingBytes: $0) }
        add(actorNumber: actorNumber(actor), timeMs: timeMs, eventID: id, steps: steps, breakdown: breakdown, values: linked)
    }

    /// ``add(actor:timeMs:eventID:steps:breakdown:values:)`` for a reader that numbers its actors
    /// by ``actorNumber(_:)`` once each (knowing them by a cheaper key than the text), with the
    /// event id as `UUIDWords(orderingBytes:)` (core) gives it: no allocation per event.
    public mutating func add(actorNumber: Int32, timeMs: Int64, eventID: UUIDWords, steps: UInt32, breakdown: String?, values linked: [String?] = []) {
        var event = Event(timeMs: timeMs, idHigh: eventID.high, idLow: eventID.low, steps: steps, breakdown: intern(breakdown), actor: actorNumber)
        if !linked.isEmpty {
            event.values = Int32(values.count)
            values.append(linked)
        }
        events.append(event)
    }

    /// Room for `count` more events (a reader that knows how many it will add).
    public mutating func reserveCapacity(_ count: Int) {
        events.reserveCapacity(events.count + count)
    }

    /// The events grouped by actor, each actor's in the total order: actor n's are
    /// `ordered[starts[n]..<starts[n + 1]]`. Events added in that order already (the column
    /// store's reader adds them so) are taken as they are.
    func eventsByActor() -> (ordered: [Event], starts: [Int]) {
        var starts = [Int](repeating: 0, count: actorNames.count + 1)
        for event in events { starts[Int(event.actor) + 1] += 1 }
        for actor in 0..<actorNames.count { starts[actor + 1] += starts[actor] }
        if events.indices.dropFirst().allSatisfy({ index in
            let (previous, event) = (events[index - 1], events[index])
            return previous.actor < event.actor || (previous.actor == event.actor && Event.before(previous, event))
        }) {
            return (events, starts)
        }
        var placed = starts
        let ordered = [Event](unsafeUninitializedCapacity: events.count) { buffer, initialized in
            for event in events {
                let actor = Int(event.actor)
                (buffer.baseAddress! + placed[actor]).initialize(to: event)
                placed[actor] += 1
            }
            for actor in 0..<actorNames.count where starts[actor + 1] - starts[actor] > 1 {
                buffer[starts[actor]..<starts[actor + 1]].sort(by: Event.before)
            }
            initialized = events.count
        }
        return (ordered, starts)
    }

    /// A number for an actor the caller knows is new (a reader that numbers its actors itself,
    /// by a cheaper key than the name): no lookup by name. Do not mix with ``actorNumber(_:)``
    /// for the same actor.
    public mutating func newActorNumber(_ actor: String) -> Int32 {
        actorNames.append(actor)
        return Int32(actorNames.count - 1)
    }

    /// The number of `actor`, given on first sight.
    public mutating func actorNumber(_ actor: String) -> Int32 {
        if let number = actorNumbers[actor] { return number }
        let number = Int32(actorNames.count)
        actorNames.append(actor)
        actorNumbers[actor] = number
        return number
    }

    mutating func intern(_ value: String?) -> Int32 {
        guard let value else { return -1 }
        if let index = breakdownIndex[value] { return index }
        let index = Int32(breakdownValues.count)
        breakdownValues.append(value)
        breakdownIndex[value] = index
        return index
    }

    /// The report: every actor's reported chain, counted per step overall and, with a
    /// breakdown, per value of the chain's entry event (the chains are the same either way; the
    /// breakdown only labels them).
    ///
    /// Actors do not depend on each other, so they are walked in two runs of about equal events
    /// on both cores (`ParallelWork`, in the core) and the two tallies merged: a step's median does not
    /// depend on the order of its values, and its links are a union.
    public func report() -> FunnelReport {
        if query.funnel.handoffIndex != nil { return linkedReport() }
        let (grouped, starts) = eventsByActor()
        let middle = starts.firstIndex { $0 >= grouped.count / 2 } ?? actorNames.count
        let runs = [0..<min(middle, actorNames.count), min(middle, actorNames.count)..<actorNames.count]
        let evaluator = self
        let tallies = ParallelWork.map(runs) { actors in evaluator.tally(actors, grouped: grouped, starts: starts) }
        var (overall, buckets) = tallies[0]
        for (more, moreBuckets) in tallies.dropFirst() {
            overall.merge(more)
            buckets.merge(moreBuckets) { mine, theirs in
                var merged = mine
                merged.merge(theirs)
                return merged
            }
        }
        return FunnelReport(query: query, overall: overall.rows(breakdown: nil), breakdownRows: bucketRows(buckets))
    }

    /// The chains of `actors`, counted overall and per breakdown value.
    func tally(_ actors: Range<Int>, grouped: [Event], starts: [Int]) -> (overall: StepDeltas, buckets: [Int32: StepDeltas]) {
        var overall = StepDeltas(stepCount: stepCount)
        var buckets: [Int32: StepDeltas] = [:]
        let keyed = query.funnel.chainKey != nil
        let plain = FunnelModes.isPlain(query)
        for actor in actors where starts[actor + 1] > starts[actor] {
            let ordered = Array(grouped[starts[actor]..<starts[actor + 1]])
            if !plain {
                // Order modes, exclusions, conversion over time (FunnelEvaluator+Modes).
                let (chain, days) = modeChains(ordered)
                if let chain {
                    overall.add(chain)
                    if query.breakdown != nil { buckets[chain.breakdown, default: StepDeltas(stepCount: stepCount)].add(chain) }
                }
                for (day, chain) in days { buckets[day, default: StepDeltas(stepCount: stepCount)].add(chain) }
                continue
            }
            guard let chain = keyed ? keyedBestChain(ordered) : bestChain(ordered, steps: stepCount) else { continue }
            overall.add(chain)
            if query.breakdown != nil { buckets[chain.breakdown, default: StepDeltas(stepCount: stepCount)].add(chain) }
        }
        return (overall, buckets)
    }

    /// The breakdown's rows: one bucket per value, or — past ``FunnelQuery/breakdownLimit`` —
    /// the values with the most actors entering (step 1; ties by value, the null bucket last) and
    /// one "other" bucket. "Other" merges the chains of the remaining values before counting:
    /// every chain has one entry and so one value, so its actors, links, conversions and medians
    /// are those of exactly the actors outside the kept values, never a sum of rates.
    func bucketRows(_ buckets: [Int32: StepDeltas]) -> [FunnelRow]? {
        if query.byEntryDay { return buckets.flatMap { day, deltas in deltas.rows(breakdown: String(day)) } }
        guard query.breakdown != nil else { return nil }
        let name = { (bucket: Int32) in bucket >= 0 ? self.breakdownValues[Int(bucket)] : nil }
        guard let limit = query.breakdownLimit, buckets.count > limit + 1 else {
            return buckets.flatMap { bucket, deltas in deltas.rows(breakdown: name(bucket)) }
        }
        let ranked = buckets.keys.sorted { a, b in
            let (entriesA, entriesB) = (buckets[a]!.perStep[0].count, buckets[b]!.perStep[0].count)
            if entriesA != entriesB { return entriesA > entriesB }
            switch (name(a), name(b)) {
            case let (x?, y?): return x < y
            case (nil, _): return false
            case (_, nil): return true
            }
        }
        var other = StepDeltas(stepCount: stepCount)
        for bucket in ranked.dropFirst(limit) { other.merge(buckets[bucket]!) }
        return ranked.prefix(limit).flatMap { buckets[$0]!.rows(breakdown: name($0)) }
            + other.rows(breakdown: nil).map { row in
                var row = row
                row.otherValues = ranked.count - limit
                return row
            }
    }

    /// Per step (and the success as step n + 1), the milliseconds from the previous step (from
    /// the step the success follows) of every chain that reaches it, and the links reaching it.
    struct StepDeltas {
        var perStep: [[Int64]]
        var links: [Set<Int>]

        init(stepCount: Int) {
            perStep = Array(repeating: [], count: stepCount + 1)
            links = Array(repeating: [], count: stepCount + 1)
        }

        mutating func add(_ chain: Chain, from first: Int = 1, link: Int? = nil) {
            let times = chain.times
            for k in (first - 1)..<times.count {
                perStep[k].append(k == 0 ? 0 : times[k] - times[k - 1])
                if let link { links[k].insert(link) }
            }
            if let success = chain.successMs {
                perStep[perStep.count - 1].append(success - times[chain.successAfter - 1])
                if let link { links[perStep.count - 1].insert(link) }
            }
        }

        /// Adds `other`'s chains and links (the "other" bucket of a limited breakdown). Links are
        /// numbered once per funnel, so a union never merges two.
        mutating func merge(_ other: StepDeltas) {
            for k in perStep.indices {
                perStep[k] += other.perStep[k]
                links[k].formUnion(other.links[k])
            }
        }

        /// One row per step some chain (or link) reaches, as the SQL returns them.
        func rows(breakdown: String?) -> [FunnelRow] {
            perStep.indices.filter { !perStep[$0].isEmpty || !links[$0].isEmpty }.map { offset in
                let values = perStep[offset]
                return FunnelRow(breakdown: breakdown, step: offset + 1, actors: Int64(values.count),
                                 medianMs: offset == 0 || values.isEmpty ? nil : Median.lower(values), links: Int64(links[offset].count))
            }
        }
    }

    /// A reported chain: step times from step 1 (receivers' chains: the link's times before the
    /// hand-off), the entry's breakdown, and the success's time.
    struct Chain {
        var times: [Int64]
        var breakdown: Int32
        var successMs: Int64? = nil
        /// 1-based step the success follows.
        var successAfter: Int = 0
    }

    /// For each event i and each bit k < `width`: the first event after i with bit k (−1: none),
    /// at `[i * width + k]`. Built backwards in one pass, so each chain step is one lookup.
    static func nextTable(_ events: [Event], width: Int) -> [Int32] {
        var next = [Int32](repeating: -1, count: events.count * width)
        var seen = [Int32](repeating: -1, count: width)
        for index in stride(from: events.count - 1, through: 0, by: -1) {
            for k in 0..<width { next[index * width + k] = seen[k] }
            for k in 0..<width where events[index].steps & (1 << UInt32(k)) != 0 { seen[k] = Int32(index) }
        }
        return next
    }

    /// The greedy chain of steps 1…`steps` from the entry at `index`, as event positions.
    static func greedyChain(_ events: [Event], _ next: [Int32], width: Int, from index: Int, steps: Int, deadline: Int64) -> [Int] {
        var positions = [index]
        for k in 1..<steps {
            let candidate = next[positions[positions.count - 1] * width + k]
            // The first match after the previous step is the greedy choice; when it is past the
            // window, every later one is too, and the chain ends.
            guard candidate >= 0, events[Int(candidate)].timeMs <= deadline else { break }
            positions.append(Int(candidate))
        }
        return positions
    }

    /// The reported chain of one actor over steps 1…`steps` (events in the total order): the
    /// highest level over its entries, the earliest entry on ties; nil when it has no entry. With
    /// a success condition (whole single-actor funnels), the first success event after the
    /// chain's step-s event, within the window.
    func bestChain(_ events: [Event], steps: Int) -> Chain? {
        let withSuccess = steps == stepCount && successBit != nil
        let width = stepCount + (withSuccess ? 1 : 0)
        let next = Self.nextTable(events, width: width)
        var best: [Int]?
        for (index, entry) in events.enumerated()
        where entry.steps & 1 != 0 && entry.timeMs >= query.fromMs && entry.timeMs < query.toMs {
            let chain = Self.greedyChain(events, next, width: width, from: index, steps: steps, deadline: entry.timeMs &+ query.windowMs)
            if chain.count > (best?.count ?? 0) {
                best = chain
                if chain.count == steps { break }
            }
        }
        guard let best else { return nil }
        let entry = events[best[0]]
        var chain = Chain(times: best.map { events[$0].timeMs }, breakdown: entry.breakdown)
        if withSuccess, let after = query.funnel.successCondition?.afterStep, best.count >= after {
            let candidate = next[best[after - 1] * width + stepCount]
            if candidate >= 0, events[Int(candidate)].timeMs <= entry.timeMs &+ query.windowMs {
                chain.successMs = events[Int(candidate)].timeMs
                chain.successAfter = after
            }
        }
        return chain
    }
}
