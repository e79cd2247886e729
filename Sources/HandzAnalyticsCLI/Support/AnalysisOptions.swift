import ArgumentParser
import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzCatalog
import HandzQuery

/// The time range, actor and output format shared by `funnel`, `kpi` and `sql`. Dates are UTC.
struct RangeOptions: ParsableArguments {
    /// Without `--from`/`--to` the range is every time the validator accepts.
    static let defaultFromMs: Int64 = 946_684_800_000  // 2000-01-01T00:00:00Z
    static let defaultToMs: Int64 = 4_102_444_800_000  // 2100-01-01T00:00:00Z

    @Option(help: "From (inclusive): UTC date (2026-03-01) or ISO-8601 time. Default 2000-01-01.")
    var from: String?

    @Option(help: "To (exclusive): UTC date or ISO-8601 time. Default 2100-01-01.")
    var to: String?

    @Option(help: "Who is counted: install (default) or user (installs resolved to their user_id).")
    var actor: ActorKind = .install

    var fromMs: Int64 { from.flatMap(TimestampFormat.milliseconds) ?? Self.defaultFromMs }
    var toMs: Int64 { to.flatMap(TimestampFormat.milliseconds) ?? Self.defaultToMs }

    func validate() throws {
        for (option, value) in [("--from", from), ("--to", to)] where value.map({ TimestampFormat.milliseconds($0) == nil }) ?? false {
            throw ValidationError("\(option) must be a UTC date (2026-03-01) or ISO-8601 time")
        }
        guard fromMs < toMs else { throw ValidationError("--from must be before --to") }
    }
}

extension ActorKind: ExpressibleByArgument {}
extension SQLDialect: ExpressibleByArgument {}
extension FunnelOrder: ExpressibleByArgument {}

/// `NAME | --steps STEPS [--window 7d] [--breakdown PROP]` and the range: one funnel run, of the
/// catalog's or ad hoc (``AdHocFunnel``).
struct FunnelOptions: ParsableArguments {
    @Argument(help: "The funnel: F0, F1, F2, F3 or F4 (catalog/funnels.yaml); or --steps.")
    var name: String?

    @Option(help: ArgumentHelp("An ad-hoc funnel instead: enabled catalog events, steps separated by commas, alternatives by |, closed-set filters in brackets.",
                               discussion: "Example: app_open[start_type=cold],onboarding_viewed,flow_builder_opened|library_viewed. Window default 7d.",
                               valueName: "steps"))
    var steps: String?

    @OptionGroup var range: RangeOptions

    @Option(help: "Conversion window, an exact duration (30m, 24h, 7d). Default: the funnel's (ad hoc: 7d).")
    var window: String?

    @Option(help: "Break down by a closed-set property of the entry event (enum or boolean).")
    var breakdown: String?

    @Option(help: "How steps follow one another: sequential (anything between them), strict (nothing between them) or any (any order). Default: the funnel's (ad hoc: sequential).")
    var order: FunnelOrder?

    @Option(help: ArgumentHelp("An exclusion step (repeatable): a chain is dropped when such an event falls between two of its steps.",
                               discussion: "Events and filters as in a step, then @A-B to watch only the steps between step A and step B (default: all). Example: --exclude 'library_viewed@2-4'.",
                               valueName: "events"))
    var exclude: [String] = []

    @Flag(help: "Conversion over time: the funnel counted per UTC day of entry, each day's entries a funnel of their own.")
    var byDay = false

    func validate() throws {
        if let window, (DurationText.seconds(window) ?? 0) <= 0 { throw ValidationError("--window must be a positive duration like 24h or 7d") }
        guard (name == nil) != (steps == nil) else { throw ValidationError("name a catalog funnel or give --steps, not both") }
    }

    func query(_ catalog: Catalog) throws -> FunnelQuery {
        let funnel: FunnelDefinition
        if let steps {
            funnel = try usage { try AdHocFunnel.definition(steps, windowSeconds: window.flatMap(DurationText.seconds) ?? AdHocFunnel.defaultWindowSeconds, catalog: catalog) }
        } else if let found = catalog.funnels.first(where: { $0.id == name }) {
            funnel = found
        } else {
            throw ValidationError("no funnel \(name ?? ""); the catalog defines \(catalog.funnels.map(\.id).joined(separator: ", "))")
        }
        var query = FunnelQuery(funnel: funnel, fromMs: range.fromMs, toMs: range.toMs, windowMs: window.flatMap(DurationText.seconds).map { $0 * 1000 },
                                actor: range.actor, breakdown: breakdown)
        if let order { query.funnel.order = order }
        for text in exclude {
            query.funnel.exclusions.append(try usage { try AdHocFunnel.exclusion(text, steps: funnel.steps.count, catalog: catalog) })
        }
        query.byEntryDay = byDay
        try usage { try FunnelModes.check(query) }
        return query
    }
}

/// `--db PATH` and `--format`, for the commands that analyse the embedded store.
struct AnalysisStoreOptions: ParsableArguments {
    @Option(help: "SQLite database file.")
    var db = "handz-events.sqlite"

    @Option(help: "table, json or csv.")
    var format: OutputFormat = .table

    /// The store, read-only; a missing file is a usage error (never created by analysis).
    func open(_ catalog: Catalog) throws -> StoreAnalysis {
        try openForAnalysis(db, catalog: catalog)
    }
}

/// Opens `--db` for `funnel`, `kpi` and `dashboard render` on SQLite (`--via sqlite`, or when
/// the column store is not current): read-only, never migrated, never sealed (``StoreAnalysis``).
/// A store of an older schema fails with `StoreReadError`, which names the command that upgrades it.
func openForAnalysis(_ db: String, catalog: Catalog) throws -> StoreAnalysis {
    try requireExistingDatabase(db)
    return try StoreAnalysis(path: db, catalog: catalog)
}

/// `--from` and `--to` of `trend` and `retention`: both required, each a UTC date or ISO-8601 time.
func validateRange(from: String, to: String) throws {
    guard TimestampFormat.milliseconds(from) != nil else { throw ValidationError("--from must be a UTC date (2026-03-01) or ISO-8601 time") }
    guard TimestampFormat.milliseconds(to) != nil else { throw ValidationError("--to must be a UTC date (2026-03-01) or ISO-8601 time") }
}

/// A query error is a usage error: the request named something the catalog does not allow.
func usage<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as QueryError {
        throw ValidationError(error.description)
    }
}
