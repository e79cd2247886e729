import Foundation

/// Runs the built `handz-analytics` (or another product) as a real process, with a deadline, and
/// captures its exit status and output.
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

    /// Runs `handz-analytics arguments…`, feeding `stdin`, killing it after `timeout` seconds.
    public static func run(_ arguments: [String], stdin: Data? = nil, product: String = "handz-analytics",
                           workingDirectory: URL? = nil, timeout: TimeInterval = 120) throws -> Result {
        let process = Process()
        process.executableURL = Self.product(product)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        // Read both pipes concurrently so a chatty process never blocks on a full pipe.
        let outData = ReadBox(), errData = ReadBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData.data = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData.data = errors.fileHandleForReading.readDataToEndOfFile() }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw CommandTimeout(arguments: arguments)
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData.data, as: UTF8.self), stderr: String(decoding: errData.data, as: UTF8.self))
    }

    public struct CommandTimeout: Error { public let arguments: [String] }

    private final class ReadBox: @unchecked Sendable { var data = Data() }
}

/// A fresh temporary directory, removed by the caller.
public func temporaryDirectory(_ prefix: String = "handz") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
