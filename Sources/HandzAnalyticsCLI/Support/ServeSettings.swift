import ArgumentParser
import Foundation
import Yams

/// `serve`'s settings from the environment and a settings file as well as the command line
/// (issue 37 §3), so a service unit or a container sets them the way it sets any server's.
///
/// **Precedence**, highest first: the command line, then the environment (`HANDZ_SERVE_` and the
/// option's name in capitals, dashes as underscores: `HANDZ_SERVE_MAX_EVENTS=500`), then the
/// settings file (`--config FILE`, or `HANDZ_SERVE_CONFIG`), then the option's default. A flag
/// takes `true` or `false` (`HANDZ_SERVE_NO_DASHBOARDS=true`); an option given more than once on
/// the command line (`--trusted-proxy`) takes a YAML list in the file and a comma-separated list
/// in the environment. The file is a YAML mapping from option names to values:
///
/// ```yaml
/// host: 0.0.0.0
/// port: 8443
/// db: /var/lib/handz/events.sqlite
/// max-events: 500
/// no-dashboards: false
/// trusted-proxy: [127.0.0.1, "::1"]
/// ```
///
/// **How**: the settings found for options the command line leaves out become `--name=value`
/// arguments placed before the command line's own, so ArgumentParser reads every setting,
/// whatever its source, with one set of types, checks and messages. The names are checked
/// against `serve`'s declared options first (from ArgumentParser's description of the command),
/// so a misspelt variable or key is an error naming where it came from, not silently ignored.
///
/// **Why not apple/swift-configuration** (which is in the package set): `serve`'s 30 options are
/// already declared, typed and documented once, as ArgumentParser options; reading them through
/// a second library would declare each twice (a key and a default in each place) or leave `--help`
/// out of step with what is read. Putting the other sources in front of the one parser keeps one
/// place per option. Reloading settings while running is not offered: SIGHUP reloads the catalog
/// and the keys file (*Operations*), and the other settings take a restart.
///
/// Values are never printed: a store URL may carry a password. What is printed at start is which
/// names came from where.
enum ServeSettings {
    static let environmentPrefix = "HANDZ_SERVE_"
    static let configVariable = "HANDZ_SERVE_CONFIG"
    static let configOption = "config"

    /// The settings found for `serve`, in the order they are placed before the command line.
    struct Found: Equatable {
        var name: String
        /// One value, or several for a repeatable option.
        var values: [String]
        /// `the environment (HANDZ_SERVE_PORT)` or `FILE`.
        var source: String
    }

    /// The command line to parse: for `serve`, the settings from the environment and the file put
    /// in front of the arguments given; any other command's arguments unchanged.
    static func commandLine(_ arguments: some Collection<String>,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            readFile: (String) throws -> String = { try String(contentsOfFile: $0, encoding: .utf8) },
                            report: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) throws -> [String] {
        let arguments = Array(arguments)
        guard arguments.first == Serve.configuration.commandName ?? "serve" else { return arguments }
        let given = Array(arguments.dropFirst())
        let found = try settings(given: given, environment: environment, readFile: readFile)
        guard !found.isEmpty else { return arguments }
        let declared = try DeclaredOptions(Serve.self)
        var placed: [String] = []
        for setting in found {
            guard let kind = declared.kinds[setting.name] else {
                throw ValidationError("\(setting.source): serve has no option --\(setting.name)")
            }
            var values = setting.values
            if kind == .repeating, setting.source.hasPrefix("the environment"), values.count == 1 {
                values = values[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            guard values.count == 1 || kind == .repeating else {
                throw ValidationError("\(setting.source): --\(setting.name) takes one value")
            }
            switch kind {
            case .flag:
                switch values[0].lowercased() {
                case "true": placed.append("--\(setting.name)")
                case "false": break
                default: throw ValidationError("\(setting.source): --\(setting.name) is a flag; its setting is true or false")
                }
            case .option, .repeating:
                placed += values.map { "--\(setting.name)=\($0)" }
            }
        }
        let bySource = Dictionary(grouping: found, by: { $0.source.hasPrefix("the environment") ? "the environment" : $0.source })
        report("serve: settings " + bySource.keys.sorted().map { source in
            "from \(source) (\(bySource[source]!.map(\.name).joined(separator: ", ")))"
        }.joined(separator: " and "))
        return ["serve"] + placed + given
    }

    /// The settings the environment and the file give for options the command line leaves out.
    static func settings(given: [String], environment: [String: String], readFile: (String) throws -> String) throws -> [Found] {
        let onCommandLine = Set(given.compactMap(optionName))
        var found: [String: Found] = [:]
        if let path = value(of: configOption, in: given) ?? environment[configVariable] {
            let text: String
            do { text = try readFile(path) } catch { throw ValidationError("cannot read the settings file \(path)") }
            for (name, values) in try fileSettings(text, path: path) where name != configOption {
                found[name] = Found(name: name, values: values, source: path)
            }
        }
        for (variable, value) in environment where variable.hasPrefix(environmentPrefix) && variable != configVariable {
            let name = variable.dropFirst(environmentPrefix.count).lowercased().replacingOccurrences(of: "_", with: "-")
            found[name] = Found(name: name, values: [value], source: "the environment (\(variable))")
        }
        return found.values.filter { !onCommandLine.contains($0.name) }.sorted { $0.name < $1.name }
    }

    /// `name` of `--name` or `--name=value`; nil for anything else.
    static func optionName(_ argument: String) -> String? {
        guard argument.hasPrefix("--"), argument.count > 2 else { return nil }
        return String(argument.dropFirst(2).prefix { $0 != "=" })
    }

    /// The value of `--name VALUE` or `--name=VALUE` on a command line.
    static func value(of name: String, in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--\(name)", index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix("--\(name)=") { return String(argument.dropFirst(name.count + 3)) }
        }
        return nil
    }

    /// A settings file's names and values: a YAML mapping whose values are scalars or lists of
    /// scalars, read as written (the parser decides what a value means).
    static func fileSettings(_ text: String, path: String) throws -> [(String, [String])] {
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch { throw ValidationError("\(path) is not YAML") }
        guard let node else { return [] }
        guard let mapping = node.mapping else { throw ValidationError("\(path): the settings file is a mapping of option names to values") }
        return try mapping.map { key, value in
            guard let name = key.string else { throw ValidationError("\(path): every key is an option's name") }
            if let scalar = value.scalar { return (name, [scalar.string]) }
            guard let list = value.sequence, !list.isEmpty, list.allSatisfy({ $0.scalar != nil }) else {
                throw ValidationError("\(path): \(name) must be a value or a list of values")
            }
            return (name, list.compactMap { $0.scalar?.string })
        }
    }
}

/// The long option names a command declares, each with its kind, read from ArgumentParser's
/// JSON description of the command (what `--experimental-dump-help` prints).
struct DeclaredOptions {
    enum Kind { case flag, option, repeating }
    let kinds: [String: Kind]

    init(_ command: any ParsableCommand.Type) throws {
        guard let tool = try? JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any],
              let description = tool["command"] as? [String: Any] else {
            throw ValidationError("cannot read the options of \(command.configuration.commandName ?? "the command")")
        }
        var kinds: [String: Kind] = [:]
        for argument in description["arguments"] as? [[String: Any]] ?? [] {
            let kind: Kind
            switch argument["kind"] as? String {
            case "flag": kind = .flag
            case "option": kind = (argument["isRepeating"] as? Bool) == true ? .repeating : .option
            default: continue
            }
            for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                if let long = name["name"] as? String { kinds[long] = kind }
            }
        }
        self.kinds = kinds
    }
}
