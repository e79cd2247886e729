import Foundation
import HandzAnalyticsCore
import HandzCatalog
import HandzCatalogReleases
import HandzColumnStore
import HandzIngest
import HandzLake
import HandzLifecycle
import HandzPostgresStore
import HandzQuery
import HandzSigning
import HandzStore
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import UnixSignals

/// Everything `handz-analytics serve` can set.
/// The embedded store's write path (`serve --engine`).
public enum EmbeddedEngine: String, Sendable, CaseIterable {
    /// Every accepted event a row of the SQLite log, sealed into the column store (versions
    /// 1.0–1.2; a store made by them keeps it until upgraded).
    case sqlite
    /// Accepted requests appended to segment files, sealed into the column store (issue 34):
    /// what `serve` and `import` make a new store with.
    case segments
}

public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var databasePath = "handz-events.sqlite"
    /// `postgres://…` to use a shared PostgreSQL store instead of the embedded SQLite file.
    public var storeURL: String?
    /// An analysis node (issue 36): follow this shared PostgreSQL store into the embedded segment
    /// store at ``databasePath`` (``StoreFollower``) and serve the dashboards from the copy; no
    /// events are ingested here.
    public var followURL: String?
    public var followIntervalSeconds: Double = 0.5
    public var keysPath = "handz-keys.json"
    public var catalogDirectory: String
    public var limits = IngestLimits()
    public var rateLimits = RateLimits()
    public var store = StoreConfiguration()
    /// Where to write the access log, if anywhere.
    public var accessLogPath: String?
    /// Longest wait for in-flight requests on SIGTERM before cancelling them.
    public var shutdownGraceSeconds = 15
    /// A connection with no request in progress (none yet, a request head only half sent, or
    /// between keep-alive requests) is closed after this many seconds.
    public var idleTimeoutSeconds: Double = 30
    /// A request body must arrive whole within this many seconds, or the answer is 408 and the
    /// connection closes.
    public var bodyTimeoutSeconds: Double = 20
    /// Seconds between the starts of background seals of the embedded store's column copy
    /// (issue 33; fractions allowed); 0 seals only on demand, before a page is drawn.
    public var columnSealIntervalSeconds: Double = 10
    /// The embedded store's write path: the SQLite log, or the segment log (issue 34, a preview:
    /// ingestion, sealing, stats, deletion, retention and the lake; see `SegmentEventStore`). `serve` seals segments every half second
    /// by default (``columnSealIntervalSeconds``), so the pages' own seals stay short.
    public var embeddedEngine = EmbeddedEngine.sqlite
    /// The most connections held open at once (``ConnectionLimit``).
    public var maxConnections = ConnectionLimit.defaultMaximum()
    /// Where `GET /metrics` is served (``MetricsPlacement``); nil: the default for `host`.
    public var metricsPlacement: MetricsPlacement?
    /// The clients' settings served at `GET /v1/client-config` (a JSON file), or the defaults.
    public var clientConfigPath: String?
    /// Roll the event lake into this directory while serving (`LakeExportService`).
    public var lakeDirectory: String?
    /// Seconds between lake export ticks.
    public var lakeIntervalSeconds = 300
    /// Complete hours each tick re-exports.
    public var lakeLookbackHours = 2
    /// How long data is kept (issue 14 §4; CH33-P3): applied every `retentionIntervalSeconds`.
    public var retention = RetentionPolicy.default
    public var retentionIntervalSeconds = 3_600
    /// Seconds between the deletion worker's passes (a new request also wakes it at once).
    public var deletionIntervalSeconds = 10
    /// PostgreSQL: seconds a finished store step waits so one `VACUUM FULL` covers many requests
    /// (nil: 3,600 on PostgreSQL, 0 on SQLite, where the step is a cheap checkpoint).
    public var deletionVacuumDelaySeconds: Int?
    /// How long a deletion worker's lease lasts before another node (or this one, restarted) may
    /// take the request over.
    public var deletionLeaseSeconds = 300
    /// Serve the dashboards at `/dashboards/` (issue 16; embedded store only: the analysis reads
    /// SQLite). Analysts sign in with an `analyst` key.
    public var servesDashboards = true
    /// The dashboards directory (nil: `dashboards/` beside the catalog).
    public var dashboardsDirectory: String?
    /// Peers whose `X-Forwarded-Proto: https` marks the session cookie `Secure` (``TrustedProxies``).
    public var trustedProxies = TrustedProxies.loopback
    /// Fault injection for tests: the process kills itself (SIGKILL, as `kill -9` would) once the
    /// deletion worker has rewritten this many lake partitions.
    public var faultKillAfterPartitions: Int?

    public init(catalogDirectory: String) { self.catalogDirectory = catalogDirectory }
}

/// What the server tells its operator on start (printed by the CLI).
public struct ServerStartup: Sendable {
    public var databasePath: String
    public var keysPath: String
    /// A key created because no keys file existed: shown once, for local use.
    public var createdKey: IngestionKey?
    public var catalogVersion: String
}

/// Runs the ingestion endpoint until SIGTERM or SIGINT, then shuts down gracefully: stops
/// accepting connections, lets in-flight requests finish and commit, drains the store's writer,
/// and returns. SIGHUP reloads the catalog.
public enum ServerRunner {
    public static func run(
        _ options: ServerOptions, logger: Logger,
        onStart: @escaping @Sendable (ServerStartup) -> Void = { _ in },
        onListening: @escaping @Sendable (String, Int) -> Void = { _, _ in },
        onMetricsListening: @escaping @Sendable (String, Int) -> Void = { _, _ in }
    ) async throws {
        ServerMetrics.bootstrap()
        let catalogDirectory = options.catalogDirectory
        let loadCatalogs: @Sendable () throws -> CatalogSet = {
            let served = try ServedCatalogs.load(directory: catalogDirectory)
            return CatalogSet(current: served.current, releases: served.releases)
        }
        let catalogs = try loadCatalogs()
        let catalog = catalogs.current
        let createdKey = try prepareKeysFile(options.keysPath)
        let store: any EventStore
        var segments: SegmentEventStore?
        if let url = options.storeURL {
            store = try await PostgresEventStore(url: url, logger: logger)
        } else if options.embeddedEngine == .segments {
            let opened = try SegmentEventStore(path: options.databasePath, configuration: options.store) { line in logger.warning("\(line)") }
            (store, segments) = (opened, opened)
        } else {
            store = try SQLiteEventStore(path: options.databasePath, configuration: options.store)
        }
        let service = IngestService(
            catalog: LiveCatalog(catalogs), store: store, keys: try KeyRing(path: options.keysPath),
            limits: options.limits, rateLimits: options.rateLimits, logger: logger,
            catalogLoader: loadCatalogs
        )
        onStart(ServerStartup(databasePath: options.storeURL.map(redacted) ?? absolute(options.databasePath), keysPath: absolute(options.keysPath),
                              createdKey: createdKey, catalogVersion: catalog.version))

        // The embedded store's column copy (issue 33): sealed in the background and before each page.
        let columns = options.storeURL == nil ? LiveColumnStore(databasePath: options.databasePath, catalog: catalog, segments: segments) : nil
        var dashboardSite: DashboardSite?
        if options.servesDashboards, options.storeURL == nil {
            let directory = options.dashboardsDirectory ?? DashboardLoader.directory(besideCatalog: catalogDirectory)
            // Dashboards that do not fit the catalog never keep the endpoint from starting: the
            // pages then offer the funnel explorer only, and the log says why.
            var dashboards: [DashboardDefinition] = []
            do {
                dashboards = try DashboardLoader.loadChecked(directory: directory, catalog: catalog)
            } catch {
                logger.warning("dashboards not served: the dashboards directory does not fit the catalog (run handz-analytics catalog lint); the funnel explorer is")
            }
            dashboardSite = try DashboardSite(databasePath: options.databasePath, catalog: catalog, releases: catalogs.releases, dashboards: dashboards,
                                              keys: service.keys, columns: columns, logger: logger)
        }
        let clientConfig = try options.clientConfigPath.map { try ClientConfig(json: Data(contentsOf: URL(fileURLWithPath: $0))) } ?? ClientConfig()
        let metrics = options.metricsPlacement ?? MetricsPlacement.resolve(nil, ingestHost: options.host)!
        let app = Application(
            router: IngestRouter.make(service: service, accessLog: try options.accessLogPath.map(AccessLog.init(path:)),
                                      bodyTimeout: .milliseconds(Int64(options.bodyTimeoutSeconds * 1000)), clientConfig: clientConfig,
                                      servesMetrics: metrics == .ingestPort, dashboards: dashboardSite, trustedProxies: options.trustedProxies,
                                      ingests: options.followURL == nil),
            server: .http1(configuration: .init(idleTimeout: .milliseconds(Int64(options.idleTimeoutSeconds * 1000)))),
            configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "handz-analytics",
                                                    availableConnectionsDelegate: MaximumAvailableConnections(options.maxConnections, logger: logger)),
            onServerRunning: { channel in onListening(options.host, channel.localAddress?.port ?? options.port) },
            logger: logger
        )
        var services: [any Service] = [StoreService(store: store), CatalogReloadService(service: service, logger: logger)]
        if let url = options.followURL {
            guard let segments else { throw StoreError.unavailable("an analysis node keeps its copy in a segment store (--engine segments)") }
            let source = try await PostgresEventStore(url: url, logger: logger)
            services.append(StoreService(store: source))
            services.append(FollowService(follower: StoreFollower(source: source, copy: segments),
                                          interval: .milliseconds(Int64((options.followIntervalSeconds * 1000).rounded())), logger: logger))
        }
        if let columns, options.columnSealIntervalSeconds > 0 {
            services.append(ColumnSealingService(columns: columns, interval: .milliseconds(Int64((options.columnSealIntervalSeconds * 1000).rounded())), logger: logger))
        }
        if let lake = options.lakeDirectory {
            services.append(LakeExportService(
                store: store, exporter: LakeExporter(root: URL(fileURLWithPath: lake)), interval: .seconds(options.lakeIntervalSeconds),
                lookbackHours: Int64(options.lakeLookbackHours), logger: logger))
        }
        let lakeExporter = options.lakeDirectory.map { LakeExporter(root: URL(fileURLWithPath: $0)) }
        if lakeExporter != nil { try await store.registerLake() }
        var worker = DeletionWorker(store: store, lake: lakeExporter, owner: "\(ProcessInfo.processInfo.hostName)/\(getpid())",
                                    clock: { Int64(Date().timeIntervalSince1970 * 1000) })
        worker.oldVersionsDelayMs = Int64(options.deletionVacuumDelaySeconds ?? (options.storeURL == nil ? 0 : 3_600)) * 1000
        if let limit = options.faultKillAfterPartitions {
            worker.afterPartition = { written in if written >= limit { kill(getpid(), SIGKILL) } }
        }
        worker.leaseMs = Int64(options.deletionLeaseSeconds) * 1000
        if let columns {
            // The chunks the store step changed are rewritten before old versions are reclaimed (CH34).
            worker.afterStoreStep = { _ = try await DashboardSite.offLoop { try columns.seal(lockWait: .seconds(60)) }.get() }
        }
        worker.storeStepDelayMs = 2 * Int64(options.deletionIntervalSeconds) * 1000
        // Before the first request is served: the deleted users a late event could still name.
        try await service.refreshDeletedSubjects(nowMs: worker.clock())
        services.append(LifecycleService(
            worker: worker, retention: RetentionRunner(store: store, lake: lakeExporter, policy: options.retention), service: service,
            deletionInterval: .seconds(options.deletionIntervalSeconds), retentionInterval: .seconds(options.retentionIntervalSeconds), logger: logger))
        services.append(app)
        if case .address(let host, let port) = metrics {
            // Its own listener, few connections: it answers a scraper, not the fleet.
            services.append(Application(
                router: IngestRouter.metricsOnly(),
                server: .http1(configuration: .init(idleTimeout: .seconds(30))),
                configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "handz-analytics",
                                                        availableConnectionsDelegate: MaximumAvailableConnections(16, logger: logger)),
                onServerRunning: { channel in onMetricsListening(host, channel.localAddress?.port ?? port) },
                logger: logger
            ))
        }
        var configuration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(options.shutdownGraceSeconds)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// Creates the keys file with one ingest key when it does not exist; returns that key.
    static func prepareKeysFile(_ path: String) throws -> IngestionKey? {
        guard !FileManager.default.fileExists(atPath: path) else { return nil }
        let key = IngestionKey.generate(scopes: [.ingest])
        try KeysFile(keys: [key]).save(path: path)
        return key
    }

    /// A store URL without its password, for printing.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "postgres://…" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "postgres://…"
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// Keeps the store open while the server runs; on shutdown (after the HTTP server has finished
/// its in-flight requests) drains the writer and closes.
struct StoreService: Service {
    let store: any EventStore

    func run() async throws {
        try? await gracefulShutdown()
        await store.close()
    }
}

/// Reloads the catalog on SIGHUP; a catalog that fails lint is refused and the old one stays.
struct CatalogReloadService: Service {
    let service: IngestService
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                do {
                    try service.reloadCatalog()
                } catch {
                    logger.error("catalog reload refused: the catalog has problems (run handz-analytics catalog lint)")
                }
            }
        }
    }
}
