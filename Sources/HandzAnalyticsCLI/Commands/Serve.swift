import ArgumentParser
import Foundation
import HandzServer
import HandzStore
import Logging

/// `handz-analytics serve`: the ingestion endpoint on the embedded SQLite store.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the ingestion endpoint (HTTP, signed keys, rate limits) on an embedded SQLite store.",
        discussion: """
        On first start it creates the keys file with one ingest key and prints its secret once. \
        SIGTERM or SIGINT shut down gracefully (in-flight batches finish and commit); SIGHUP reloads the catalog. \
        Every option can also be set in the environment (HANDZ_SERVE_MAX_EVENTS=500) or in a YAML settings file \
        (--config FILE, or HANDZ_SERVE_CONFIG); the command line wins over the environment, which wins over the file.
        """
    )

    @OptionGroup var catalogOptions: CatalogOptions

    @Option(help: "A YAML file of settings, option names to values (max-events: 500); the environment and the command line override it.")
    var config: String?

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "SQLite database file.")
    var db = "handz-events.sqlite"

    @Option(help: "Use a shared PostgreSQL store (postgres://user@host:port/database; the password from PGPASSWORD) instead of --db.")
    var store: String?

    @Option(help: "An analysis node: follow this shared PostgreSQL store (postgres://…) into --db, a segment store, and serve the dashboards from that copy; no events are ingested here (HandzServer documentation, \"SeveralNodes\").")
    var follow: String?

    @Option(help: "Keys file (created with one ingest key if missing).")
    var keys = "handz-keys.json"

    @Option(help: "Durability: full (fsync every commit; survives power loss) or normal (survives a process crash).")
    var synchronous: String = "full"

    @Option(help: "The store writer's SQLite page cache, MiB: part of serve's resident memory, filled as events are stored (HandzServer docs, Operations).")
    var cacheMib = StoreConfiguration().cacheMiB

    @Option(help: "Embedded store: seconds between the starts of background seals of the column store, fractions allowed (0: seal only before a dashboard page is drawn). Default 0.5 on the segment engine, 10 on the SQLite log.")
    var columnSealInterval: Double?

    @Option(help: "Embedded store's write path: segments (the segment log, the default for a new store) or sqlite (the SQLite log of versions 1.0-1.2). Default: the store's own. A store of the SQLite log is upgraded in place by --engine segments, and cannot go back.")
    var engine: String?

    /// The engine asked for, else the store's own (`defaultEngine`: segments for a new store).
    var resolvedEngine: String { engine ?? (store == nil ? defaultEngine(forDatabase: db).rawValue : "sqlite") }

    @Option(help: "With --engine sqlite, a quota on the SQLite database file, bytes: past it batches get 503 with Retry-After, nothing acknowledged, until purge frees pages or the quota is raised.")
    var maxDbBytes: Int?

    @Option(help: "Largest request body as sent, bytes.")
    var maxBodyBytes = 1 << 20

    @Option(help: "Largest body after decompression, bytes.")
    var maxDecompressedBytes = 5 << 20

    @Option(help: "Most events in one batch.")
    var maxEvents = 1_000

    @Option(help: "Requests processed at once; more get 429.")
    var maxConcurrentRequests = 64

    @Option(help: "Rate limit per ingestion key, events per second.")
    var keyEventsPerSecond: Double = 200_000

    @Option(help: "Rate limit per install_id, events per second.")
    var installEventsPerSecond: Double = 50

    @Option(help: "Burst allowance per install_id, events.")
    var installBurst: Double = 5_000

    @Option(help: "Seconds before a connection with no request in progress (including a request head only half sent) is closed.")
    var idleTimeout: Double = 30

    @Option(help: "Seconds to receive a whole request body (keep it below --idle-timeout); a slower one gets 408 and the connection closes.")
    var bodyTimeout: Double = 20

    @Option(help: "Most connections held open at once; past it new ones wait in the listen backlog until others close (default: 10,000, or the descriptor limit less 128 when lower).")
    var maxConnections: Int?

    @Option(help: "Where GET /metrics is served: HOST:PORT, or `ingest` for the ingest port (default: the ingest port when --host is loopback, else 127.0.0.1:9464).")
    var metricsListen: String?

    @Option(help: "JSON file of the settings served to clients at GET /v1/client-config (flush_interval_seconds, max_batch_events, disabled_catalog_versions).")
    var clientConfig: String?

    @Option(help: "Append one JSON line per request (time, method, path, status, duration — no headers or bodies) to this file.")
    var accessLog: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Option(help: "Roll the event lake into this directory while serving (as `export lake` does), every --lake-interval seconds.")
    var lake: String?

    @Option(help: "Seconds between lake exports; each re-exports the last two complete hours.")
    var lakeInterval = 300

    @Option(help: "How long data is kept: Nmo (calendar months, UTC), Nd (days), or off (logged as a warning). Applied to events, receipts, quarantine, completed deletion requests, audit rows and lake partitions (CH33-P3).")
    var retention = RetentionPolicy.default.description

    @Option(help: "Seconds between retention runs.")
    var retentionInterval = 3_600

    @Option(help: "Seconds between the deletion worker's passes (a new request wakes it at once).")
    var deletionInterval = 10

    @Option(help: "PostgreSQL: seconds a deletion waits so one VACUUM FULL covers many (default 3600; SQLite needs none).")
    var deletionVacuumDelay: Int?

    @Option(help: "Seconds a deletion worker's lease lasts (renewed while it works): after a crash, the request is taken over this long later.")
    var deletionLease = 300

    @Flag(help: "Do not serve the dashboards at /dashboards/ (served by default on the embedded store, to analyst keys).")
    var noDashboards = false

    @Option(help: "The dashboards directory the served pages read (default: dashboards/ beside the catalog).")
    var dashboards: String?

    @Option(help: "A reverse proxy's address whose X-Forwarded-Proto: https marks the dashboards' session cookie Secure (repeat for several; `none` for no proxy; default: the loopback addresses, a proxy on this host). No client address is read from a proxy: no limit or log uses one.")
    var trustedProxy: [String] = []

    @Option(help: .hidden)
    var faultKillAfterPartitions: Int?

    func validate() throws {
        guard StoreConfiguration.Synchronous(rawValue: synchronous) != nil else { throw ValidationError("--synchronous must be full or normal") }
        guard (columnSealInterval ?? 0) >= 0 else { throw ValidationError("--column-seal-interval must be at least 0") }
        guard EmbeddedEngine(rawValue: resolvedEngine) != nil else { throw ValidationError("--engine must be sqlite or segments") }
        if store == nil, resolvedEngine == "sqlite", isSegmentStore(db) {
            throw ValidationError("\(db) is a segment engine's store (upgraded or made by --engine segments); it cannot go back to the SQLite log")
        }
        try checkPostgresURL(store)
        try checkPostgresURL(follow)
        if follow != nil {
            guard store == nil else { throw ValidationError("--follow keeps a copy in --db; it does not take --store") }
            guard resolvedEngine == EmbeddedEngine.segments.rawValue else { throw ValidationError("--follow keeps its copy in a segment store (--engine segments)") }
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        guard MetricsPlacement.resolve(metricsListen, ingestHost: host) != nil else {
            throw ValidationError("--metrics-listen must be HOST:PORT or ingest")
        }
        guard maxDbBytes == nil || store == nil else { throw ValidationError("--max-db-bytes applies to the SQLite store; PostgreSQL has its own quotas") }
        guard maxDbBytes == nil || resolvedEngine == EmbeddedEngine.sqlite.rawValue else {
            throw ValidationError("--max-db-bytes caps the SQLite log's file (--engine sqlite); the segment engine answers 503 with Retry-After when its disk is full, and resumes by itself")
        }
        guard (1...4096).contains(cacheMib) else { throw ValidationError("--cache-mib must be 1-4096") }
        guard (maxDbBytes ?? 1 << 20) >= 1 << 20 else { throw ValidationError("--max-db-bytes must be at least 1 MiB (1048576)") }
        guard (maxConnections ?? 16) >= 16 else { throw ValidationError("--max-connections must be at least 16") }
        guard RetentionPolicy(retention) != nil else { throw ValidationError("--retention must look like 13mo, 400d or off") }
        guard retentionInterval >= 1, deletionInterval >= 1, deletionLease >= 1, (deletionVacuumDelay ?? 0) >= 0 else {
            throw ValidationError("--retention-interval and --deletion-interval must be at least 1 second, --deletion-vacuum-delay at least 0")
        }
        guard (0.1...3_600).contains(idleTimeout), (0.1...3_600).contains(bodyTimeout) else {
            throw ValidationError("--idle-timeout and --body-timeout must be 0.1-3600 seconds")
        }
    }

    func run() async throws {
        // Held for the server's life: `restore --replace` refuses a store that is being served.
        let storeLock = store == nil ? try StoreInUse.holdWhileServing(db: db) : nil
        defer { if let storeLock { close(storeLock) } }
        var options = ServerOptions(catalogDirectory: try catalogOptions.directory())
        options.host = host
        options.port = port
        options.databasePath = db
        options.storeURL = store
        options.followURL = follow
        options.keysPath = keys
        options.accessLogPath = accessLog
        options.lakeDirectory = lake
        options.lakeIntervalSeconds = max(1, lakeInterval)
        options.retention = RetentionPolicy(retention)!
        options.retentionIntervalSeconds = retentionInterval
        options.deletionIntervalSeconds = deletionInterval
        options.deletionVacuumDelaySeconds = deletionVacuumDelay
        options.faultKillAfterPartitions = faultKillAfterPartitions
        options.deletionLeaseSeconds = deletionLease
        options.idleTimeoutSeconds = idleTimeout
        if let maxConnections { options.maxConnections = maxConnections }
        options.metricsPlacement = MetricsPlacement.resolve(metricsListen, ingestHost: host)
        options.clientConfigPath = clientConfig
        options.servesDashboards = !noDashboards
        options.dashboardsDirectory = dashboards
        if !trustedProxy.isEmpty { options.trustedProxies = trustedProxy == ["none"] ? .none : TrustedProxies(trustedProxy) }
        options.bodyTimeoutSeconds = bodyTimeout
        options.store.synchronous = StoreConfiguration.Synchronous(rawValue: synchronous)!
        options.embeddedEngine = EmbeddedEngine(rawValue: resolvedEngine)!
        options.columnSealIntervalSeconds = columnSealInterval ?? (options.embeddedEngine == .segments ? 0.5 : 10)
        options.store.maxDatabaseBytes = maxDbBytes
        options.store.cacheMiB = cacheMib
        options.limits.maxBodyBytes = maxBodyBytes
        options.limits.maxDecompressedBytes = maxDecompressedBytes
        options.limits.maxEventsPerBatch = maxEvents
        options.limits.maxConcurrentRequests = maxConcurrentRequests
        options.rateLimits.perKeyEventsPerSecond = keyEventsPerSecond
        options.rateLimits.perKeyBurst = keyEventsPerSecond * 2
        options.rateLimits.perInstallEventsPerSecond = installEventsPerSecond
        options.rateLimits.perInstallBurst = installBurst
        var logger = Logger(label: "handz.server")
        logger.logLevel = Logger.Level(rawValue: logLevel)!
        try await ServerRunner.run(options, logger: logger, onStart: { startup in
            var lines = ["handz-analytics serve — catalog \(startup.catalogVersion)",
                         "database: \(startup.databasePath)",
                         "keys file: \(startup.keysPath)"]
            if let key = startup.createdKey {
                lines += ["created an ingestion key for local use (the secret is shown only now):",
                          "  key id: \(key.id)",
                          "  secret: \(key.secretHex)"]
            }
            printNow(lines.joined(separator: "\n"))
        }, onListening: { host, port in
            printNow("listening on http://\(host):\(port)")
        }, onMetricsListening: { host, port in
            printNow("metrics on http://\(host):\(port)/metrics")
        })
    }
}

/// Writes a line to standard output at once (no buffering), so a supervisor or test reading the
/// output sees it immediately.
func printNow(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
