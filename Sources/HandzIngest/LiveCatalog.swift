import HandzAnalyticsCore

/// The catalogs in force, swappable at runtime (SIGHUP or `POST /v1/admin/reload`): the current
/// catalog and every kept release (docs/catalog-releases.md). Each request takes its catalog
/// once, so its events are validated against — and stored with — the version chosen when they
/// arrived, whatever a reload does meanwhile.
public final class LiveCatalog: Sendable {
    private struct Pool {
        var compiled: CompiledCatalog
        var validators: [EventValidator]
    }
    private struct State {
        var current: String
        var retired: [String]
        var pools: [String: Pool]
    }
    private let state: Locked<State>

    /// `releases` are the kept released catalogs; one with the current catalog's version is
    /// replaced by the current catalog (the working catalog of a released version is that release).
    public init(_ catalog: Catalog, releases: [Catalog] = []) {
        state = Locked(Self.state(catalog, releases))
    }

    public convenience init(_ set: CatalogSet) {
        self.init(set.current, releases: set.releases)
    }

    private static func state(_ catalog: Catalog, _ releases: [Catalog]) -> State {
        var pools: [String: Pool] = [:]
        for release in releases { pools[release.version] = Pool(compiled: CompiledCatalog(release), validators: []) }
        pools[catalog.version] = Pool(compiled: CompiledCatalog(catalog), validators: [])
        return State(current: catalog.version, retired: catalog.retiredVersions, pools: pools)
    }

    public var current: CompiledCatalog { state.withLock { $0.pools[$0.current]!.compiled } }

    /// The versions the current catalog retires (the client config's kill switch lists them).
    public var retired: [String] { state.withLock { $0.retired } }

    /// Installs new catalogs; validators of the old ones are dropped.
    public func replace(with catalog: Catalog, releases: [Catalog] = []) {
        let fresh = Self.state(catalog, releases)
        state.withLock { $0 = fresh }
    }

    /// A validator for the current catalog, from a small pool (its scratch tables and key
    /// predictions are worth keeping between requests).
    public func checkOutValidator() -> EventValidator {
        state.withLock { state in Self.take(&state, version: state.current) }
    }

    /// A validator for the catalog the app's `catalog_version` chooses (``CatalogVersionPolicy``),
    /// or the code every event of the batch is refused with.
    public func checkOutValidator(forCatalogVersion claimed: String?) -> Result<EventValidator, CatalogVersionRefusal> {
        state.withLock { state in
            // The common case without building the policy's inputs: a kept, unretired version
            // (the policy's own first rule after retirement), or none at all.
            guard let claimed else { return .success(Self.take(&state, version: state.current)) }
            if state.pools[claimed] != nil, !state.retired.contains(claimed) { return .success(Self.take(&state, version: claimed)) }
            let kept = Array(state.pools.keys)
            switch CatalogVersionPolicy.choose(claimed: claimed, current: state.current, kept: kept, retired: state.retired) {
            case .use(let version): return .success(Self.take(&state, version: version))
            case .refuse(let code): return .failure(CatalogVersionRefusal(code: code))
            }
        }
    }

    private static func take(_ state: inout State, version: String) -> EventValidator {
        if let validator = state.pools[version]?.validators.popLast() { return validator }
        return EventValidator(catalog: state.pools[version]!.compiled)
    }

    /// Returns a validator to its pool, unless its catalog was replaced meanwhile.
    public func checkIn(_ validator: EventValidator) {
        state.withLock { state in
            let version = validator.catalog.version
            if let pool = state.pools[version], validator.catalog === pool.compiled, pool.validators.count < 32 {
                state.pools[version]!.validators.append(validator)
            }
        }
    }
}

/// The catalogs a server loads: the current one and the kept releases (`catalog/releases/`).
public struct CatalogSet: Sendable {
    public var current: Catalog
    public var releases: [Catalog]

    public init(current: Catalog, releases: [Catalog] = []) {
        self.current = current
        self.releases = releases
    }
}

/// Why a batch's catalog version is refused: the code each of its events gets on the receipt.
public struct CatalogVersionRefusal: Error, Sendable, Equatable {
    public let code: ValidationErrorCode
}
