import Foundation

/// Removes `directory` when the test process exits normally: for the shared fixtures
/// (`static let shared`), which live as long as the process and so have no test after which to
/// remove them. A killed process leaves them, as it leaves everything else.
public func removeAtExit(_ directory: URL) {
    ExitCleanup.shared.add(directory.path)
}

/// The directories `removeAtExit` collected, removed by one `atexit` handler.
private final class ExitCleanup: @unchecked Sendable {
    static let shared = ExitCleanup()
    private let lock = NSLock()
    private var paths: [String] = []

    private init() {
        atexit { ExitCleanup.shared.removeAll() }
    }

    func add(_ path: String) {
        lock.withLock { paths.append(path) }
    }

    func removeAll() {
        for path in lock.withLock({ paths }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
