import Foundation

/// Lints files on disk: expands directories into their Swift files, reads each one and gathers
/// a single report. The file-system side of the lint; ``SourceLinter`` does the rest.
public struct LintRun: Sendable {
    public let linter: SourceLinter

    public init(linter: SourceLinter) { self.linter = linter }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// A path given to the lint does not exist.
        case missingPath(String)
        /// A Swift file could not be read.
        case unreadableFile(String)

        public var code: String {
            switch self {
            case .missingPath: "lint_missing_path"
            case .unreadableFile: "lint_unreadable_file"
            }
        }

        public var description: String {
            switch self {
            case .missingPath(let path): "\(path): error: [\(code)] no such file or directory"
            case .unreadableFile(let path): "\(path): error: [\(code)] cannot read the file"
            }
        }
    }

    /// The `.swift` files named by `paths`, directories searched recursively (hidden directories
    /// such as `.build` skipped), without the configuration's excluded paths; sorted, no repeats.
    public func swiftFiles(in paths: [String]) throws(Failure) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .missingPath(path) }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            // Found files keep the spelling of the path they were found under (`Sources/…`, not `/home/…/Sources/…`).
            let root = URL(fileURLWithPath: path).standardizedFileURL.path
            let prefix = path.hasSuffix("/") ? String(path.dropLast()) : path
            let enumerator = FileManager.default.enumerator(at: URL(fileURLWithPath: root), includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
            while let url = enumerator?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                let found = url.standardizedFileURL.path
                files.append(found.hasPrefix(root + "/") ? prefix + found.dropFirst(root.count) : found)
            }
        }
        let configuration = linter.configuration
        let kept = files.filter { !configuration.isExcluded(URL(fileURLWithPath: $0).standardizedFileURL.path) }
        return Array(Set(kept)).sorted()
    }

    /// Lints `files` (Swift files, as ``swiftFiles(in:)`` returns them) into one report.
    public func lint(files: [String]) throws(Failure) -> LintReport {
        var noCache: LintCache?
        return try lint(files: files, cache: &noCache)
    }

    /// Lints `files`, taking the result of every unchanged file from `cache` and recording the
    /// others in it.
    public func lint(files: [String], cache: inout LintCache?) throws(Failure) -> LintReport {
        var report = LintReport()
        for path in files {
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path) }
            let contentHash = cache == nil ? 0 : ContentHash.of(data)
            let result: SourceLinter.FileResult
            if let cached = cache?.result(path: path, contentHash: contentHash) {
                result = cached
            } else {
                result = linter.lint(source: String(decoding: data, as: UTF8.self), path: path)
                cache?.store(result, path: path, contentHash: contentHash)
            }
            report.diagnostics += result.diagnostics
            report.emissions += result.emissions
            report.fileCount += 1
            report.lineCount += data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        cache?.retain(files)
        return report
    }
}
