/// One page computed at a time, a few waiting: a burst of reloads cannot take the ingestion
/// endpoint's cores (a page at 100,000 installs reads for seconds on two workers). Identical
/// requests never reach it twice: ``PageFlights`` merges them first.
actor RenderGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    let maximumWaiting: Int

    init(maximumWaiting: Int) { self.maximumWaiting = maximumWaiting }

    /// False when too many requests already wait (the caller answers 503).
    func enter() async -> Bool {
        guard busy else {
            busy = true
            return true
        }
        guard waiting.count < maximumWaiting else { return false }
        await withCheckedContinuation { waiting.append($0) }
        return true
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }

    /// Requests waiting for the page being computed.
    var waitingCount: Int { waiting.count }
}
