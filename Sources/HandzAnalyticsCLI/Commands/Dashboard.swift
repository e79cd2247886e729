import ArgumentParser
import Foundation
import HandzAnalysis
import HandzColumnStore
import HandzAnalyticsCore
import HandzCatalog
import HandzDashboards
import HandzIngest
import HandzQuery

/// `handz-analytics dashboard …`: the CH33 §7 dashboards of `dashboards/`, rendered to a static
/// report or exported to Grafana.
struct DashboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Render the CH33 §7 dashboards to a static HTML report, or export them to Grafana.",
        subcommands: [DashboardRender.self, DashboardExport.self]
    )
}

/// `--dashboards DIR` and the catalog, shared by the dashboard commands.
struct DashboardOptions: ParsableArguments {
    @OptionGroup var catalogOptions: CatalogOptions

    @Option(help: "The dashboards directory (default: dashboards/ beside the catalog).")
    var dashboards: String?

    func load() throws -> (Catalog, [DashboardDefinition]) {
        let catalog = try catalogOptions.load()
        let directory = try dashboards ?? DashboardLoader.directory(besideCatalog: catalogOptions.directory())
        do {
            return (catalog, try DashboardLoader.loadChecked(directory: directory, catalog: catalog))
        } catch let error as CatalogLoader.LoadError {
            throw CleanFailure("the dashboards have problems:\n\(error)")
        }
    }
}

/// `handz-analytics dashboard render --db PATH --out DIR [--from DATE --to DATE]`. Reads the store
/// read-only (``openForAnalysis(_:catalog:)``).
struct DashboardRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Write index.html and one self-contained HTML page per dashboard (inline SVG charts, data tables, no scripts)."
    )

    @OptionGroup var options: DashboardOptions

    @Option(help: "SQLite database file (the embedded store).")
    var db = "handz-events.sqlite"

    @Option(help: "Output directory (created if missing).")
    var out: String

    @Option(help: "From (inclusive): UTC date or ISO-8601 time. Default: the day of the first stored event (events dated after their receipt left out).")
    var from: String?

    @Option(help: "To (exclusive): UTC date or ISO-8601 time. Default: the day after the last stored event not dated after its receipt.")
    var to: String?

    @Flag(help: "Print each panel's query time to standard error.")
    var timings = false

    @Option(help: "Read-only connections querying in parallel.")
    var workers = 2

    @Option(help: "auto: the column engine for every panel it answers when the store's column copy is current, SQLite for the others; columns: insist on a current copy; sqlite: never. Same numbers.")
    var via: AnalysisEngine = .auto

    func validate() throws {
        for (option, value) in [("--from", from), ("--to", to)] where value.map({ TimestampFormat.milliseconds($0) == nil }) ?? false {
            throw ValidationError("\(option) must be a UTC date (2026-03-01) or ISO-8601 time")
        }
    }

    func run() throws {
        let started = Date()
        let (catalog, dashboards) = try options.load()
        let store = try openForAnalysis(db, catalog: catalog)
        let columns = try via.panels(db: db, catalog: catalog)
        // The days of the events not dated after their receipt (a wrong clock moves no range).
        let stored = try columns?.store.eventTimeRange(toleranceMs: StoreAnalysis.futureToleranceMs) ?? store.eventTimeRange()
        let day = EventQuery.dayMs
        let fromMs = from.flatMap(TimestampFormat.milliseconds) ?? stored.map { $0.first - $0.first % day } ?? RangeOptions.defaultFromMs
        let toMs = to.flatMap(TimestampFormat.milliseconds) ?? stored.map { $0.last - $0.last % day + day } ?? fromMs + day
        guard fromMs < toMs else { throw ValidationError("--from must be before --to") }
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        guard (toMs - fromMs) / day <= 3660 else { throw ValidationError("the range is longer than ten years; pass --from and --to") }
        let printTimings = timings
        let progress = ProgressLine()
        let total = dashboards.reduce(0) { $0 + $1.panels.count }
        let done = Locked(0)
        var data = try usage {
            try DashboardRunner.run(dashboards, path: db, catalog: catalog, fromMs: fromMs, toMs: toMs, workers: workers,
                                    engine: columns) { dashboard, panel, seconds in
                if printTimings { FileHandle.standardError.write(Data(String(format: "%7.3f s  %@/%@\n", seconds, dashboard.id, panel.id).utf8)) }
                let finished = done.withLock { count in count += 1; return count }
                progress.update("rendering: \(finished)/\(total) panels, \(String(format: "%.0f", Date().timeIntervalSince(started))) s")
            }
        }
        progress.finish()
        // Funnel panels over several catalog versions say what some could not send
        // (docs/catalog-releases.md, "Analysis across versions").
        // From the column store's per-chunk rollup when it answers (a scan of the log otherwise).
        let versions = try columns?.store.catalogVersions(fromMs: fromMs, toMs: toMs) ?? store.catalogVersions(fromMs: fromMs, toMs: toMs)
        let availability = try options.catalogOptions.availability(current: catalog, dataVersions: versions)
        for dashboard in data.indices {
            data[dashboard].addFunnelNotes { availability.notes(for: $0, dataVersions: versions) }
        }
        let pages = Report.pages(data, source: URL(fileURLWithPath: db).lastPathComponent, generatedAt: Format.time(Int64(started.timeIntervalSince1970 * 1000)))
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for page in pages {
            try Data(page.html.utf8).write(to: URL(fileURLWithPath: out).appendingPathComponent(page.fileName))
        }
        let seconds = String(format: "%.2f", Date().timeIntervalSince(started))
        print("{\"pages\":\(pages.count),\"panels\":\(data.reduce(0) { $0 + $1.panels.count }),\"from\":\"\(Format.time(fromMs))\",\"to\":\"\(Format.time(toMs))\",\"seconds\":\(seconds),\"index\":\(JSONString.quoted(URL(fileURLWithPath: out).appendingPathComponent("index.html").path))}")
    }
}

struct DashboardExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the dashboards to another tool.",
        subcommands: [GrafanaExport.self]
    )
}

extension GrafanaTimeMacros.Flavor: ExpressibleByArgument {}

/// `handz-analytics dashboard export grafana --dialect postgres|clickhouse --out DIR`.
struct GrafanaExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grafana",
        abstract: "Write one Grafana dashboard JSON per dashboard, with the builders' SQL and Grafana's time macros."
    )

    @OptionGroup var options: DashboardOptions

    @Option(help: "postgres (grafana-postgresql-datasource) or clickhouse (grafana-clickhouse-datasource).")
    var dialect: GrafanaTimeMacros.Flavor

    @Option(help: "Output directory (created if missing).")
    var out: String

    func run() throws {
        let (catalog, dashboards) = try options.load()
        let exporter = GrafanaExporter(catalog: catalog, flavor: dialect)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for dashboard in dashboards {
            let path = URL(fileURLWithPath: out).appendingPathComponent(exporter.fileName(dashboard))
            try Data(try exporter.json(dashboard).utf8).write(to: path)
            print(path.path)
        }
    }
}
