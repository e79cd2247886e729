import ArgumentParser
import Foundation
import HandzSigning

/// `handz-analytics keys create|revoke|list`: manage the signed ingestion keys (CH33 §10).
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, revoke and list ingestion keys.",
        subcommands: [Create.self, Revoke.self, List.self]
    )

    struct FileOption: ParsableArguments {
        @Option(name: .customLong("keys"), help: "Keys file.")
        var path = "handz-keys.json"

        /// Unchecked: the commands must work on a file whose bad entry stops `serve` (list shows it).
        func load() throws -> KeysFile {
            FileManager.default.fileExists(atPath: path) ? try KeysFile.load(path: path, checked: false) : KeysFile()
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a key and print its secret (shown only once).")

        @OptionGroup var file: FileOption

        @Option(name: .customLong("scope"), help: "ingest, admin (repeat for both) or analyst (the served dashboards; alone).")
        var scopes: [KeyScope] = [.ingest]

        @Option(help: "Also write a one-key file a client can sign with (handz-analytics send --key-file).")
        var clientKeyOut: String?

        func validate() throws {
            guard KeyScope.allowsCombination(Set(scopes)) else {
                throw ValidationError("an analyst key has the analyst scope only: create a separate key for ingest or admin")
            }
        }

        func run() throws {
            var keys = try file.load()
            let key = IngestionKey.generate(scopes: Array(Set(scopes)).sorted { $0.rawValue < $1.rawValue })
            keys.keys.append(key)
            try keys.save(path: file.path)
            if let clientKeyOut { try KeysFile(keys: [key]).save(path: clientKeyOut) }
            print("key id: \(key.id)")
            print("scopes: \(key.scopes.map(\.rawValue).joined(separator: ","))")
            print("secret: \(key.secretHex)")
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key; a running server stops accepting it within a second.")

        @OptionGroup var file: FileOption

        @Argument(help: "The key id.")
        var id: String

        func run() throws {
            var keys = try file.load()
            guard let index = keys.keys.firstIndex(where: { $0.id == id }) else { throw ValidationError("no key \(id) in \(file.path)") }
            keys.keys[index].status = .revoked
            keys.keys[index].revokedAt = ISO8601DateFormatter().string(from: Date())
            try keys.save(path: file.path)
            print("revoked \(id)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")

        @OptionGroup var file: FileOption

        func run() throws {
            for key in try file.load().keys {
                let problem = IngestionKey.isValidID(key.id) && key.hasValidSecret ? "" : "\tINVALID id or secret: serve refuses this file; fix or remove this entry"
                let id = IngestionKey.isValidID(key.id) ? key.id : "(invalid id)"
                print("\(id)\t\(key.status.rawValue)\t\(key.scopes.map(\.rawValue).joined(separator: ","))\tcreated \(key.createdAt)\(problem)")
            }
        }
    }
}

extension KeyScope: ExpressibleByArgument {}
