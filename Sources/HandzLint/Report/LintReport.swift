/// The outcome of linting a set of files: every diagnostic in path/line order, every emission,
/// and how much was read.
public struct LintReport: Sendable, Equatable {
    public var diagnostics: [LintDiagnostic] = []
    public var emissions: [EventEmission] = []
    public var fileCount = 0
    public var lineCount = 0

    public init() {}

    public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
    public var warningCount: Int { diagnostics.count - errorCount }

    /// `3 error(s), 1 warning(s) in 12 file(s)`.
    public var summary: String {
        "handz-lint: \(errorCount) error(s), \(warningCount) warning(s) in \(fileCount) file(s)"
    }
}
