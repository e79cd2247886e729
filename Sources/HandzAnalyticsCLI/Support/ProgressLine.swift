import Foundation

/// Progress of a long command on standard error (issue 15 §5: `import`, `dashboard render`). On a
/// terminal, one line rewritten in place at most ten times a second and cleared at the end; when
/// standard error is a file or a pipe (CI, a log), a plain line at most every `plainEvery`
/// seconds, so the log shows the run moving without a line per step. Standard output is left to
/// the command's result.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let terminal: Bool
    private let plainEvery: TimeInterval
    private var last = Date.distantPast
    private var shown = false

    init(terminal: Bool = isatty(STDERR_FILENO) == 1, plainEvery: TimeInterval = 10) {
        self.terminal = terminal
        self.plainEvery = plainEvery
    }

    /// Reports `text` (counts and names only, never an event value) if it is time to.
    func update(_ text: @autoclosure () -> String) {
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(last) >= (terminal ? 0.1 : plainEvery) else { return }
            last = now
            write(terminal ? "\r\u{1B}[2K" + text() : text() + "\n")
            shown = true
        }
    }

    /// Clears the terminal line (a plain log keeps its lines).
    func finish() {
        lock.withLock {
            if terminal && shown { write("\r\u{1B}[2K") }
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
