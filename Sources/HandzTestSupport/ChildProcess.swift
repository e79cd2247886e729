import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A process the tests start, by `posix_spawn`: its standard descriptors opened from files (or
/// `/dev/null`), **nothing else inherited**, signals at their defaults and none blocked.
///
/// Why not Foundation's `Process`: a clean-clone CI run crashed inside `Process.run` while the
/// suites beside it held a thousand loopback sockets, and on Linux `waitUntilExit` was seen to hang
/// with a daemonizing child (`pg_ctl start`) left a zombie. Here every descriptor from 3 up is
/// closed in the child (glibc's `posix_spawn_file_actions_addclosefrom_np`, 2.34 and later; else
/// one close per descriptor open now), so a child neither inherits the tests' sockets nor counts
/// them against its own limits; and output goes to files, not pipes, so a daemon that keeps a
/// descriptor open cannot hold a reader forever.
///
/// One thread per child waits for it (a blocking `waitpid`) and records how it ended, so
/// ``wait(timeout:)`` returns on the exit itself, not on a polling tick. The names of the members
/// the tests read (`isRunning`, `processIdentifier`, `terminationStatus`, `terminationReason`,
/// `waitUntilExit()`) are `Process`'s.
public final class ChildProcess: @unchecked Sendable {
    /// Where a standard descriptor of the child reads or writes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case nullDevice
        /// A file: read from (standard input), or created or truncated and written (output).
        case file(String)
        /// The same open file as standard output (standard error only).
        case standardOutput
    }

    /// How the child ended, as `Process` says it.
    public enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    public let processIdentifier: pid_t
    private let state: ExitState

    /// Starts `executable` (an absolute path) with `arguments` (without the program name).
    /// - Parameters:
    ///   - workingDirectory: the child's current directory; the caller's when nil.
    ///   - standardInput: `.nullDevice` or `.file`.
    ///   - standardOutput: `.nullDevice` or `.file`.
    ///   - standardError: any; `.standardOutput` shares standard output's file.
    ///   - environment: variables set for the child on top of the ones it inherits.
    /// - Throws: ``SpawnFailure`` when `posix_spawn` refuses (no such file, not executable, …).
    public init(executable: String, arguments: [String], workingDirectory: String? = nil,
                standardInput: Stream = .nullDevice, standardOutput: Stream = .nullDevice,
                standardError: Stream = .standardOutput, environment: [String: String] = [:]) throws {
        var argv = [executable] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        Self.open(standardInput, as: 0, in: &actions)
        Self.open(standardOutput, as: 1, in: &actions)
        Self.open(standardError, as: 2, in: &actions)
        Self.closeInheritedDescriptors(&actions)
        if let workingDirectory, !Self.changeDirectory(workingDirectory, in: &actions) {
            // No `addchdir_np` (glibc before 2.29): env changes directory, then runs the program.
            argv = ["/usr/bin/env", "-C", workingDirectory] + argv
        }
        // Signals at their defaults and none blocked: a child must not inherit a mask from
        // whichever test thread started it (a blocked SIGTERM would stop the servers' graceful
        // exit and with it the coverage profile).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, set in set }
        var cEnvironment = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw SpawnFailure(executable: executable, errno: spawned) }
        processIdentifier = pid
        state = ExitState()
        let state = self.state, child = pid
        let reaper = Thread {
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(child, &status, 0) } while result == -1 && errno == EINTR
            state.record(result == child ? status : nil)
        }
        reaper.name = "handz-child-\(child)"
        reaper.start()
    }

    public struct SpawnFailure: Error, CustomStringConvertible {
        public let executable: String
        public let errno: Int32
        public var description: String { "cannot run \(executable): \(String(cString: strerror(errno)))" }
    }

    /// Whether the child has not exited yet (or has exited and is not reaped yet: a moment).
    public var isRunning: Bool { state.status == nil }

    /// The exit code, or the signal that ended the child; -1 while it runs.
    public var terminationStatus: Int32 {
        guard let status = state.status else { return -1 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Whether it exited or a signal ended it (`.exit` while it runs).
    public var terminationReason: TerminationReason {
        guard let status = state.status else { return .exit }
        return status & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// True when it exited with status 0.
    public var succeeded: Bool { terminationReason == .exit && terminationStatus == 0 }

    /// Waits until the child has exited, at most `timeout` seconds; true when it has.
    @discardableResult
    public func wait(timeout: TimeInterval) -> Bool { state.wait(until: Date().addingTimeInterval(timeout)) }

    /// Waits, without a bound, until the child has exited (after a SIGKILL, for instance).
    public func waitUntilExit() { _ = state.wait(until: nil) }

    /// Sends `signal`, unless the child has already been reaped (its id may belong to another
    /// process by then).
    public func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// SIGTERM; SIGKILL when it has not exited within `grace` seconds. Returns once it has exited.
    public func terminate(grace: TimeInterval = 5) {
        send(SIGTERM)
        if !wait(timeout: grace) {
            send(SIGKILL)
            waitUntilExit()
        }
    }

    /// The child's raw wait status, set once by the reaper thread.
    private final class ExitState: @unchecked Sendable {
        private let condition = NSCondition()
        private var recorded: Int32?
        private var done = false

        var status: Int32? { condition.withLock { recorded } }

        func record(_ status: Int32?) {
            condition.withLock {
                // A status lost to someone else's waitpid (ECHILD) reads as an exit with 255.
                recorded = status ?? (255 << 8)
                done = true
                condition.broadcast()
            }
        }

        /// Nil: no deadline (Foundation's `wait(until: .distantFuture)` traps on Linux).
        func wait(until deadline: Date?) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while !done {
                if let deadline {
                    if !condition.wait(until: deadline) { return done }
                } else {
                    condition.wait()
                }
            }
            return true
        }
    }

    // MARK: File actions

    private static func open(_ stream: Stream, as descriptor: Int32, in actions: inout posix_spawn_file_actions_t) {
        switch stream {
        case .nullDevice:
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, descriptor, path, descriptor == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .standardOutput:
            posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
        }
    }

    /// Adds "close every descriptor from 3 up" to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; looked up at run time because
    /// Swift's Glibc module does not declare it), else one close per descriptor open now.
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// Adds "change to `directory`" (glibc's `posix_spawn_file_actions_addchdir_np`, 2.29 and
    /// later, looked up at run time); false when this libc has none.
    private static func changeDirectory(_ directory: String, in actions: inout posix_spawn_file_actions_t) -> Bool {
        typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return false }
        return directory.withCString { unsafeBitCast(symbol, to: ChangeDirectory.self)(&actions, $0) } == 0
    }
}
