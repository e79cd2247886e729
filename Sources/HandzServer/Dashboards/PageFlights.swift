/// Identical page requests merged before the render gate (issue 32 §4): while one request draws
/// a page, every request for the same page — the same route, controls, resolved range and store
/// version — waits for that drawing and gets its answer, instead of taking a place at the
/// ``RenderGate`` (where 200 identical requests used to get 1 render, 8 waits and 191 × 503).
///
/// Keyed by the page's cache key and store version, so a request never gets a page of an older
/// store than the one it saw; an answer is shared as it is (its body's storage too: no copy).
actor PageFlights {
    private var flights: [String: [CheckedContinuation<DashboardSite.SiteAnswer, Never>]] = [:]

    /// Nil when the caller is the first for `key` (it draws, then calls ``finish(_:with:)``);
    /// otherwise the drawing's answer, once it is done.
    func join(_ key: String) async -> DashboardSite.SiteAnswer? {
        guard flights[key] != nil else {
            flights[key] = []
            return nil
        }
        return await withCheckedContinuation { flights[key]!.append($0) }
    }

    /// Hands `answer` to every request that joined `key`, and ends the flight.
    func finish(_ key: String, with answer: DashboardSite.SiteAnswer) {
        for waiter in flights.removeValue(forKey: key) ?? [] { waiter.resume(returning: answer) }
    }

    /// Requests waiting for a drawing under way, over every key.
    var followers: Int { flights.values.reduce(0) { $0 + $1.count } }
}
