import HandzAnalyticsCore
import HandzQuery

/// What to read from the chunks: which events, which time range, which matches as bits, and
/// which columns — the rows a KPI's `ae` or an event query's `ev` CTE selects.
struct ScanRequest {
    /// nil: every event (the session measures read them all).
    var events: Set<String>?
    /// Event times in [fromMs, toMs); nil for all time.
    var fromMs: Int64?
    var toMs: Int64?
    var matchers = RowMatchers()
    /// Catalog properties (or envelope fields) read as text keys, in this order.
    var textColumns: [String] = []
    /// Catalog properties read as integers, in this order.
    var integerColumns: [String] = []
    var withIDs = false
    var withSessions = false
    /// Whom ``ScannedRows/actor`` numbers: installs, or their users.
    var actor = ActorKind.install
    /// Whether to read and number the actors at all (a count of events needs none of them).
    var withActors = true

    /// The chunks this request reads: its events' (every event's when nil) that overlap its range.
    func chunks(in store: ColumnStore) -> [ColumnManifest.ChunkEntry] {
        let lower = fromMs ?? .min, upper = toMs ?? .max
        return store.manifest.chunks.filter { (events?.contains($0.event) ?? true) && $0.maxTimeMs >= lower && $0.minTimeMs < upper }
    }
}

/// The rows of a ``ScanRequest``, chunk after chunk, in flat arrays (one element per row): the
/// actor (the install, or its user) as a dense number, the session as a dense number (-1 absent, which SQL groups
/// as one NULL session), the time, the event id when asked, the event's index in
/// ``eventNames``, the match bits and the asked columns.
struct ScannedRows {
    var actor: [Int32] = []
    var session: [Int32] = []
    var time: [Int64] = []
    var ids: [UUIDWords] = []
    var event: [Int32] = []
    var masks: [UInt32] = []
    var texts: [[UInt64]]
    var integers: [[Int64?]]
    /// Actor number → the actor's text key (the install's or the user's); session number → the
    /// session's. Numbered in key order after the scan (``KeyRanks``), or in order of first
    /// sight for keys past its limit (text ids, users).
    var installs = NumberedKeys()
    var sessions = NumberedKeys()
    var eventNames: [String] = []

    var count: Int { time.count }

    /// Chunks decoded per wave: enough to keep both cores busy, few enough that a wave's decoded
    /// rows stay small beside the scan's own arrays.
    static let chunksPerWave = 32

    init(_ request: ScanRequest, store: ColumnStore) throws(ColumnStoreError) {
        texts = Array(repeating: [], count: request.textColumns.count)
        integers = Array(repeating: [], count: request.integerColumns.count)
        let textColumns = request.textColumns.map(RowMatchers.columnName)
        let integerColumns = request.integerColumns.map(RowMatchers.columnName)
        let lower = request.fromMs ?? .min, upper = request.toMs ?? .max
        let actors = try ActorKeys(request.actor, store: store)
        // Each row's actor and session key, numbered once every chunk is read.
        var actorKeys: [UInt64] = []
        var sessionKeys: [UInt64] = []
        let entries = request.chunks(in: store)
        // Every array sized once for the chunks' rows (an upper bound: a range may drop some):
        // grown by doubling, each growth copied what was read so far (13 % of `paths` over
        // 7.28 M events in memmove, perf).
        let most = entries.reduce(0) { $0 + $1.rows }
        reserve(most)
        if request.withActors { actorKeys.reserveCapacity(most) }
        if request.withSessions { sessionKeys.reserveCapacity(most) }
        if request.withIDs { ids.reserveCapacity(most) }
        for index in texts.indices { texts[index].reserveCapacity(most) }
        for index in integers.indices { integers[index].reserveCapacity(most) }
        // Event names numbered in the chunks' order, before any is read on another thread.
        var eventIndex: [String: Int32] = [:]
        for entry in entries where eventIndex[entry.event] == nil {
            eventIndex[entry.event] = Int32(eventNames.count)
            eventNames.append(entry.event)
        }
        // The chunks decoded on both cores, a wave at a time (the decoded rows of a wave are held
        // until they are appended), and appended in the chunks' order: the rows are the same,
        // in the same order, as one thread reading them.
        for start in stride(from: 0, to: entries.count, by: Self.chunksPerWave) {
            let wave = Array(entries[start..<min(start + Self.chunksPerWave, entries.count)])
            let parts = try ParallelWork.map(wave) { entry throws(ColumnStoreError) in
                try ChunkRows(entry, request, store: store, actors: actors, range: (lower, upper),
                              textColumns: textColumns, integerColumns: integerColumns)
            }
            for (entry, part) in zip(wave, parts) where part.count > 0 {
                if request.withActors { actorKeys.append(contentsOf: part.actorKeys) }
                time.append(contentsOf: part.times)
                event.append(contentsOf: repeatElement(eventIndex[entry.event]!, count: part.count))
                masks.append(contentsOf: part.masks)
                if request.withSessions { sessionKeys.append(contentsOf: part.sessionKeys) }
                if request.withIDs { ids.append(contentsOf: part.ids) }
                for index in texts.indices { texts[index].append(contentsOf: part.texts[index]) }
                for index in integers.indices { integers[index].append(contentsOf: part.integers[index]) }
            }
        }
        if request.withActors { (installs, actor) = NumberedKeys.numbering(actorKeys, absentIsNone: false) }
        if request.withSessions { (sessions, session) = NumberedKeys.numbering(sessionKeys, absentIsNone: true) }
    }

    private mutating func reserve(_ more: Int) {
        let wanted = count + more
        guard time.capacity < wanted else { return }
        let capacity = max(wanted, time.capacity * 2)
        time.reserveCapacity(capacity)
        event.reserveCapacity(capacity)
        masks.reserveCapacity(capacity)
    }

    /// Whether row `row` has every bit of `bit`.
    @inline(__always) func has(_ row: Int, _ bit: UInt32) -> Bool { masks[row] & bit != 0 }
}

/// One chunk's rows of a ``ScanRequest`` (those in its time range), decoded on a worker thread.
struct ChunkRows: Sendable {
    var actorKeys: [UInt64] = []
    var times: [Int64] = []
    var masks: [UInt32] = []
    var sessionKeys: [UInt64] = []
    var ids: [UUIDWords] = []
    var texts: [[UInt64]] = []
    var integers: [[Int64?]] = []

    var count: Int { times.count }

    init(_ entry: ColumnManifest.ChunkEntry, _ request: ScanRequest, store: ColumnStore, actors: ActorKeys, range: (lower: Int64, upper: Int64),
         textColumns: [String], integerColumns: [String]) throws(ColumnStoreError) {
        let read = try store.columns(entry)
        let times = try read.times(ColumnName.eventTime)
        let whole = entry.minTimeMs >= range.lower && entry.maxTimeMs < range.upper
        let rows = whole ? Array(0..<read.chunk.rows) : (0..<read.chunk.rows).filter { times[$0] >= range.lower && times[$0] < range.upper }
        guard !rows.isEmpty else { return }
        /// The chunk's values of the rows in range (all of them, uncopied, when the range covers the chunk).
        func kept<Value>(_ values: [Value]) -> [Value] { whole ? values : rows.map { values[$0] } }
        self.times = kept(times)
        if request.withActors { actorKeys = kept(actors.keys(try read.keys(ColumnName.installID, store.textKeys))) }
        masks = kept(try request.matchers.masks(read, strings: store.strings))
        if request.withSessions { sessionKeys = kept(try read.textKeys(ColumnName.sessionID, store.textKeys)) }
        if request.withIDs { ids = kept(try read.ids()) }
        texts = try textColumns.map { name throws(ColumnStoreError) in kept(try read.textKeys(name, store.textKeys)) }
        integers = try integerColumns.map { name throws(ColumnStoreError) in kept(try read.integers(name, dictionaries: store.strings)) }
    }
}

/// Dense numbers for the keys of a scan's rows (``ScannedRows/installs``, ``ScannedRows/sessions``):
/// each number's key.
struct NumberedKeys {
    private(set) var keys: [UInt64] = []

    var count: Int { keys.count }

    /// Each row's number for `rows` (−1 for key 0 when `absentIsNone`: SQL's one NULL session),
    /// and the keys by number: in key order through ``KeyRanks`` when every key is below its
    /// limit (UUID codes), else in order of first sight (``DenseNumbers``).
    static func numbering(_ rows: [UInt64], absentIsNone: Bool) -> (NumberedKeys, [Int32]) {
        let largest = rows.max() ?? 0
        if largest < KeyRanks.limit {
            let ranks = KeyRanks(CollectionOfOne(rows), largestKey: largest, excludingZero: absentIsNone)
            return (NumberedKeys(keys: ranks.keys), rows.map { absentIsNone && $0 == 0 ? -1 : Int32(ranks.rank($0)) })
        }
        var numbers = DenseNumbers()
        var assigned = [Int32]()
        assigned.reserveCapacity(rows.count)
        for key in rows { assigned.append(absentIsNone && key == 0 ? -1 : numbers.number(key)) }
        return (NumberedKeys(keys: numbers.keys), assigned)
    }
}
