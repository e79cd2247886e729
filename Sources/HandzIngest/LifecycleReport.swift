import HandzStore

/// What `/health` says about retention and deletions (issue 14 §4): the policy in force and the
/// latest ``LifecycleStatus`` the server's lifecycle service measured.
public struct LifecycleReport: Sendable {
    public var retention = RetentionPolicy.default
    public var status = LifecycleStatus()

    public init(retention: RetentionPolicy = .default, status: LifecycleStatus = LifecycleStatus()) {
        self.retention = retention
        self.status = status
    }

    var jsonFields: String { status.jsonFields(retention: retention) }
}
