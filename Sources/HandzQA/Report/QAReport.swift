/// One event involved in a violation: its name, device time and id — never a property value
/// (CH33 §1; the QA report may be pasted into tickets and CI logs).
public struct QAEventRef: Sendable, Equatable {
    public var name: String
    public var timeMs: Int64
    /// Nil for a quarantined event: the store keeps no identifiers for those.
    public var eventID: String?

    public init(name: String, timeMs: Int64, eventID: String?) {
        self.name = name
        self.timeMs = timeMs
        self.eventID = eventID
    }
}

/// One failure of one rule, where it happened and the events involved.
public struct QAViolation: Sendable, Equatable {
    public var ruleID: String
    /// What went wrong, in catalog names only.
    public var message: String
    public var installID: String?
    public var sessionID: String?
    /// The events involved, at most ``QAViolation/maxEvents``; `omittedEvents` counts the rest.
    public var events: [QAEventRef]
    public var omittedEvents: Int

    public static let maxEvents = 20

    public init(ruleID: String, message: String, installID: String?, sessionID: String?, events: [QAEventRef], omittedEvents: Int = 0) {
        self.ruleID = ruleID
        self.message = message
        self.installID = installID
        self.sessionID = sessionID
        self.events = events
        self.omittedEvents = omittedEvents
    }
}

/// A rule's outcome over the stream.
public struct QARuleResult: Sendable, Equatable {
    public var rule: QARule
    public var violations: [QAViolation]
    /// How many events the rule looked at as its subject (0: nothing in the stream to check).
    public var checked: Int

    public var passed: Bool { violations.isEmpty }
}

/// A line of the captured stream that could not be read: its number and why (never its text).
public struct QAInputProblem: Sendable, Equatable {
    public var line: Int
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }
}

/// The outcome of a QA run: one result per rule, in rule order.
public struct QAReport: Sendable, Equatable {
    public var results: [QARuleResult]
    public var unchecked: [QAUncheckedItem]
    /// Distinct events checked (after collapsing retried `event_id`s, as the store does).
    public var events: Int
    public var duplicates: Int
    public var quarantined: Int
    public var inputProblems: [QAInputProblem]

    public var failedRules: [QARuleResult] { results.filter { !$0.passed } }
    /// Any rule failed, or any line could not be read.
    public var failed: Bool { !failedRules.isEmpty || !inputProblems.isEmpty }
}
