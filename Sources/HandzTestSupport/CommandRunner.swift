import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `handz-analytics` (or another product) as a real process, with a deadline, and
/// captures its exit status and output. The process is a ``ChildProcess`` (`posix_spawn`, nothing
/// inherited but its three standard descriptors); its input and output go through files.
public enum CommandRunner {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The directory holding the built products: next to the running test bundle.
    public static var productsDirectory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("handz-analytics").path) { return url }
        }
        return RepositoryCatalog.root.appendingPathComponent(".build/debug")
    }

    public static func product(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }

    /// Runs `product arguments…` (`handz-analytics` by default), feeding `stdin`; after `timeout`
    /// seconds it is sent SIGTERM (SIGKILL 5 s later) and ``CommandTimeout`` is thrown. The
    /// status is the exit code, or the signal that ended it.
    public static func run(_ arguments: [String], stdin: Data? = nil, product: String = "handz-analytics",
                           workingDirectory: URL? = nil, environment: [String: String] = [:], timeout: TimeInterval = 120) throws -> Result {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("handz-command-\(UUID().uuidString)")
        let input = files.appendingPathExtension("in").path, output = files.appendingPathExtension("out").path
        let errors = files.appendingPathExtension("err").path
        defer { for path in [input, output, errors] { unlink(path) } }
        if let stdin { try stdin.write(to: URL(fileURLWithPath: input)) }
        let process = try ChildProcess(executable: Self.product(product).path, arguments: arguments, workingDirectory: workingDirectory?.path,
                                       standardInput: stdin == nil ? .nullDevice : .file(input),
                                       standardOutput: .file(output), standardError: .file(errors), environment: environment)
        guard process.wait(timeout: timeout) else {
            process.terminate(grace: 5)
            throw CommandTimeout(arguments: arguments)
        }
        func read(_ path: String) -> String { String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return Result(status: process.terminationStatus, stdout: read(output), stderr: read(errors))
    }

    public struct CommandTimeout: Error { public let arguments: [String] }
}

/// A fresh temporary directory, removed by the caller.
public func temporaryDirectory(_ prefix: String = "handz") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
