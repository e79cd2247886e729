import HandzAnalyticsCore

/// Realistic, catalog-valid user journeys through the funnels F0–F4 of CH33 §5.1, as NDJSON
/// lines (`handz-analytics simulate`). Deterministic for a seed.
///
/// What the data holds, on purpose, because each is a way funnel numbers go wrong:
/// - drop-off at every step of every funnel, and returning users on later days;
/// - guests converting mid-funnel: a `user_id` appears on the same install after
///   `signup_success` (F1);
/// - same-millisecond ties between consecutive steps, ordered by `event_id`: an install's UUIDv7s
///   are monotonic within a millisecond (RFC 9562 §6.2 method 1), so the (time, event_id) order
///   is the order the events happened — the order `qa`'s sequence rules read;
/// - the CH33 §8.2 checklist sequences kept: one app_open per foreground entry, a first
///   screen_viewed, a previous_screen_name chain, gate_attempt/gate_result pairs, save attempts
///   that resolve, practice gate results and credits that decrement (`qa` passes on a clean
///   stream; `--faults` breaks one rule at a time, see `FaultInjector`);
/// - out-of-order arrival: whole offline sessions written after later ones, and neighbours
///   swapped;
/// - retries: some lines written twice with the same `event_id` (the store keeps one);
/// - a sharing loop across installs: links created by one install are opened by others.
public struct JourneySimulator {
    public struct Options: Sendable {
        public var installs: Int
        public var days: Int
        public var seed: UInt64
        /// First install day, epoch ms (default 2026-03-01T00:00:00Z).
        public var startMs: Int64

        public init(installs: Int, days: Int, seed: UInt64, startMs: Int64 = 1_772_323_200_000) {
            self.installs = installs
            self.days = days
            self.seed = seed
            self.startMs = startMs
        }
    }

    public let options: Options
    let factory: EventFactory
    let events: [String: EventDefinition]
    var random: SeededRandom
    /// Share links created so far (bounded), with their creation time, for receivers to open.
    var sharedLinks: [(id: String, createdMs: Int64)] = []
    /// Faults not injected yet (`simulate --faults`), and where each was injected.
    var pendingFaults: Set<SimulatedFault> = []
    public private(set) var injectedFaults: [InjectedFault] = []
    /// Requested faults no install offered a place for (the stream is too small for them).
    public var faultsWithoutSite: [SimulatedFault] { SimulatedFault.allCases.filter { pendingFaults.contains($0) } }

    /// `faults`: mistakes to inject, each once at the first install that offers a place for it
    /// (``SimulatedFault``; `missing_funnel_step` applies to every install).
    public init(catalog: Catalog, options: Options, faults: Set<SimulatedFault> = []) {
        self.options = options
        pendingFaults = faults
        factory = EventFactory(catalog: catalog)
        events = Dictionary(catalog.events.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        random = SeededRandom(seed: options.seed)
    }

    /// Writes every install's journey through `emit`, one NDJSON line (without newline) at a time.
    public mutating func run(_ emit: (String) throws -> Void) rethrows {
        for _ in 0..<options.installs {
            var journey = InstallJourney(simulator: self, random: &random)
            journey.faults = pendingFaults
            journey.live()
            journey.injectAfterwards()
            pendingFaults = journey.faults
            // missing_funnel_step edits every install; it is reported once, where it started.
            injectedFaults += journey.injected.filter { fault in !injectedFaults.contains { $0.fault == fault.fault && fault.fault == .missingFunnelStep } }
            for link in journey.createdLinks {
                if sharedLinks.count < 2_000 { sharedLinks.append(link) } else { sharedLinks[Int(random.next() % 2_000)] = link }
            }
            for line in journey.arrivalOrder(&random) { try emit(line) }
        }
    }

    /// The wire JSON of one event. `removing` drops properties the journey must not send (a
    /// session's first screen has no previous_screen_name).
    func line(_ name: String, _ context: EventContext, _ overrides: [(String, PropertyValue)], removing: [String] = [], eventID: String,
              _ random: inout SeededRandom) -> String {
        let event = events[name]!
        var properties = factory.randomProperties(for: event, &random, optionalProbability: 0.3)
        properties.removeAll { removing.contains($0.0) }
        for (key, value) in overrides {
            if let index = properties.firstIndex(where: { $0.0 == key }) { properties[index].1 = value } else { properties.append((key, value)) }
        }
        return factory.json(name: name, eventID: eventID, context: context, properties: properties)
    }
}
