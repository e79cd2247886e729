import Foundation

/// Test-only fault injection for the crash tests of issue 33 ("kill -9 at each step of sealing,
/// merging and publishing"): with `HANDZ_FAULT_KILL_AT` set to a step's name in the environment,
/// the process sends itself SIGKILL when it reaches that step — no cleanup, no flush, as a power
/// cut or the OOM killer would end it. Unset (always, outside the tests), nothing happens.
enum SealFault {
    /// The steps, in the order a seal reaches them.
    static let steps = ["chunk-written", "merged", "dictionaries-appended", "manifest-published"]
    /// The steps of a seal that first rewrites chunks for the log's deletions (`LogRewriteApplier`).
    static let rewriteSteps = ["chunk-written", "rewritten", "merged", "dictionaries-appended", "manifest-published"]

    static let killAt = ProcessInfo.processInfo.environment["HANDZ_FAULT_KILL_AT"]

    @inline(__always) static func reached(_ step: String) {
        if let killAt, killAt == step { kill(getpid(), SIGKILL) }
    }
}
