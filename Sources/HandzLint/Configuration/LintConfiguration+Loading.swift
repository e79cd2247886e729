import Foundation
import Yams

extension LintConfiguration {
    /// The nearest `.handz-analytics.yml` in `directory` or one of its parents (the build tool
    /// plugin starts from the target's directory), or `nil`.
    public static func find(from directory: String) -> String? {
        var url = URL(fileURLWithPath: directory).standardizedFileURL
        while true {
            let candidate = url.appendingPathComponent(fileName).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
    }

    /// Reads a configuration file; relative paths in it are resolved against its directory.
    public static func load(path: String) throws(LintConfigurationError) -> LintConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        return try parse(String(decoding: data, as: UTF8.self), path: path, baseDirectory: base.path)
    }

    /// Parses configuration text. `path` is used in errors only.
    public static func parse(_ text: String, path: String, baseDirectory: String) throws(LintConfigurationError) -> LintConfiguration {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw .malformed(path: path, line: 1, reason: "not valid YAML: \(error)")
        }
        var configuration = LintConfiguration.standard
        guard let root else { return configuration }
        let reader = ConfigReader(path: path)
        let base = URL(fileURLWithPath: baseDirectory)
        func absolute(_ relative: String) -> String {
            (relative.hasPrefix("/") ? URL(fileURLWithPath: relative) : base.appendingPathComponent(relative)).standardizedFileURL.path
        }
        for (key, keyNode, value) in try reader.pairs(root, context: "the configuration") {
            switch key {
            case "catalog":
                configuration.catalogDirectory = absolute(try reader.string(value, "catalog"))
            case "calls":
                configuration.calls = try reader.list(value, "calls").map { item throws(LintConfigurationError) in try reader.callShape(item) }
            case "logging":
                configuration.loggingFunctions = try reader.list(value, "logging").map { item throws(LintConfigurationError) in try reader.string(item, "logging") }
            case "exclude":
                configuration.excludedPaths = try reader.list(value, "exclude").map { item throws(LintConfigurationError) in absolute(try reader.string(item, "exclude")) }
            case "severity":
                for (name, nameNode, level) in try reader.pairs(value, context: "severity") {
                    guard let rule = LintRule(rawValue: name) else { throw .unknownRule(path: path, line: reader.line(nameNode), rule: name) }
                    // `updateValue`, not subscript assignment: `off` is a stored nil, not a removed entry.
                    configuration.severityOverrides.updateValue(try reader.severity(level), forKey: rule)
                }
            default:
                throw .malformed(path: path, line: reader.line(keyNode), reason: "unknown key '\(key)' (expected catalog, calls, logging, exclude, severity)")
            }
        }
        return configuration
    }
}

/// Reads Yams nodes into the configuration's values, failing with the file and line.
private struct ConfigReader {
    let path: String

    func line(_ node: Node) -> Int { node.mark?.line ?? 1 }

    func malformed(_ node: Node, _ reason: String) -> LintConfigurationError {
        .malformed(path: path, line: line(node), reason: reason)
    }

    func pairs(_ node: Node, context: String) throws(LintConfigurationError) -> [(String, Node, Node)] {
        guard let mapping = node.mapping else { throw malformed(node, "\(context) must be a mapping") }
        var result: [(String, Node, Node)] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else { throw malformed(keyNode, "\(context): keys must be plain strings") }
            result.append((key, keyNode, value))
        }
        return result
    }

    func string(_ node: Node, _ context: String) throws(LintConfigurationError) -> String {
        guard let text = node.scalar?.string, !text.isEmpty else { throw malformed(node, "\(context) must be a non-empty string") }
        return text
    }

    func list(_ node: Node, _ context: String) throws(LintConfigurationError) -> [Node] {
        guard let sequence = node.sequence else { throw malformed(node, "\(context) must be a list") }
        return Array(sequence)
    }

    /// `track`, or `{name: logEvent, event: name, properties: parameters}`.
    func callShape(_ node: Node) throws(LintConfigurationError) -> CallShape {
        if node.scalar != nil { return CallShape(name: try string(node, "calls")) }
        var shape = CallShape(name: "")
        for (key, keyNode, value) in try pairs(node, context: "a call shape") {
            switch key {
            case "name": shape.name = try string(value, "calls: name")
            case "event": shape.eventLabel = try string(value, "calls: event")
            case "properties": shape.propertiesLabel = try string(value, "calls: properties")
            default: throw malformed(keyNode, "a call shape has name, event and properties, not '\(key)'")
            }
        }
        if shape.name.isEmpty { throw malformed(node, "a call shape needs a name") }
        return shape
    }

    func severity(_ node: Node) throws(LintConfigurationError) -> LintSeverity? {
        let text = try string(node, "severity")
        switch text {
        case "off": return nil
        case "error": return .error
        case "warning": return .warning
        default: throw .invalidSeverity(path: path, line: line(node), value: text)
        }
    }
}
