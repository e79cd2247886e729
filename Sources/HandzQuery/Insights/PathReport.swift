/// Paths (``PathQuery``): every distinct path of `depth` steps with the sessions that took it
/// (a step nil where the session ended, or started, sooner), and from them the sessions at each
/// step's event given the steps before it — the flow chart's boxes and links. Both engines give
/// ``Row``s; the report is assembled here.
public struct PathReport: Sendable, Equatable {
    /// One distinct path: its steps (nil past the session's end) and its sessions.
    public struct Row: Sendable, Equatable {
        public var steps: [String?]
        public var sessions: Int64

        public init(steps: [String?], sessions: Int64) {
            self.steps = steps
            self.sessions = sessions
        }
    }

    /// Sessions at one step's event: `event` nil is "(session ended)" (or started).
    public struct Node: Sendable, Equatable {
        public var step: Int
        public var event: String?
        public var sessions: Int64
    }

    /// Sessions going from an event at step `step` to one at `step + 1`.
    public struct Link: Sendable, Equatable {
        public var step: Int
        public var from: String?
        public var to: String?
        public var sessions: Int64
    }

    public var query: PathQuery
    /// Sessions with the anchor in the range.
    public var sessions: Int64
    /// Most sessions first, then by their steps.
    public var paths: [Row]

    public init(query: PathQuery, rows: [Row]) {
        self.query = query
        sessions = rows.reduce(0) { $0 + $1.sessions }
        paths = rows.sorted { a, b in
            a.sessions != b.sessions ? a.sessions > b.sessions : a.steps.map { $0 ?? "\u{10FFFF}" }.lexicographicallyPrecedes(b.steps.map { $0 ?? "\u{10FFFF}" })
        }
    }

    /// Sessions per (step, event), each step's largest first; step numbers from 1. A path that
    /// ended has its "(session ended)" node at the step after its last event, and none later.
    public var nodes: [Node] {
        var counts: [Int: [String?: Int64]] = [:]
        for path in paths {
            for (index, event) in path.steps.enumerated() {
                counts[index + 1, default: [:]][event, default: 0] += path.sessions
                if event == nil { break }
            }
        }
        return counts.keys.sorted().flatMap { step in
            counts[step]!.map { Node(step: step, event: $0.key, sessions: $0.value) }
                .sorted { $0.sessions != $1.sessions ? $0.sessions > $1.sessions : ($0.event ?? "\u{10FFFF}") < ($1.event ?? "\u{10FFFF}") }
        }
    }

    /// Sessions per consecutive pair of steps; step 0 is the anchor.
    public var links: [Link] {
        var counts: [Int: [PairKey: Int64]] = [:]
        for path in paths {
            var previous: String? = "anchor"
            for (index, event) in path.steps.enumerated() {
                counts[index, default: [:]][PairKey(from: previous, to: event), default: 0] += path.sessions
                if event == nil { break }
                previous = event
            }
        }
        return counts.keys.sorted().flatMap { step in
            counts[step]!.map { Link(step: step, from: $0.key.from, to: $0.key.to, sessions: $0.value) }
                .sorted { $0.sessions != $1.sessions ? $0.sessions > $1.sessions : ($0.from ?? "", $0.to ?? "\u{10FFFF}") < ($1.from ?? "", $1.to ?? "\u{10FFFF}") }
        }
    }

    struct PairKey: Hashable {
        var from: String?
        var to: String?
    }
}
