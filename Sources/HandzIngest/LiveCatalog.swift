import HandzAnalyticsCore

/// The catalog in force, swappable at runtime (SIGHUP or `POST /v1/admin/reload`). Each request
/// takes the current compiled catalog once, so its events are validated against — and stored
/// with — the version that was live when they arrived.
public final class LiveCatalog: Sendable {
    private struct State {
        var compiled: CompiledCatalog
        var validators: [EventValidator]
    }
    private let state: Locked<State>

    public init(_ catalog: Catalog) {
        state = Locked(State(compiled: CompiledCatalog(catalog), validators: []))
    }

    public var current: CompiledCatalog { state.withLock { $0.compiled } }

    /// Installs a new catalog; validators of the old one are dropped.
    public func replace(with catalog: Catalog) {
        let compiled = CompiledCatalog(catalog)
        state.withLock { state in
            state.compiled = compiled
            state.validators = []
        }
    }

    /// A validator for the current catalog, from a small pool (its scratch tables and key
    /// predictions are worth keeping between requests).
    public func checkOutValidator() -> EventValidator {
        state.withLock { state in state.validators.popLast() ?? EventValidator(catalog: state.compiled) }
    }

    /// Returns a validator to the pool, unless the catalog changed meanwhile.
    public func checkIn(_ validator: EventValidator) {
        state.withLock { state in
            if validator.catalog === state.compiled, state.validators.count < 32 { state.validators.append(validator) }
        }
    }
}
