import ArgumentParser
import Foundation

/// A `sql` subcommand whose whole output is one text: what `run()` prints, and what
/// `sql batch` answers for one request.
protocol SQLTextCommand: ParsableCommand {
    /// The SQL exactly as the command prints it, trailing newline included.
    func sqlText() throws -> String
}

extension SQLTextCommand {
    func run() throws {
        print(try sqlText(), terminator: "")
    }
}

extension SQLCommand {
    /// `handz-analytics sql batch`: many `sql` requests in one run, for a tool that needs the SQL
    /// of every question for several engines (a BI sync job, the engines' agreement check).
    ///
    /// Reads one request a line from standard input: a JSON array of the arguments that would
    /// follow `handz-analytics sql`, e.g. `["funnel","F0","--from","2026-03-01","--dialect","duckdb"]`.
    /// Writes one JSON object a line, in the order of the requests: `{"sql": TEXT}` with the text
    /// the single command prints, or `{"error": MESSAGE}` with the message it would exit with. A
    /// bad request answers an error and the batch goes on; only an unreadable line (not an array of
    /// strings) stops it, with a usage error.
    ///
    /// Decided (issue 35's CI budget): one process parses all the requests. A spawn of the CLI
    /// parses its arguments from a cold start; in the debug build the checks pay ~0.1 s per spawn
    /// (ArgumentParser's DEBUG-only validation of the command's option groups), which the
    /// agreement check paid ~600 times a run.
    struct BatchSQL: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "batch",
            abstract: "Answer many sql requests at once: each stdin line a JSON array of sql arguments, each stdout line {\"sql\": …} or {\"error\": …}."
        )

        func run() throws {
            var number = 0
            while let line = readLine() {
                number += 1
                if line.allSatisfy(\.isWhitespace) { continue }
                guard let arguments = try? JSONDecoder().decode([String].self, from: Data(line.utf8)) else {
                    throw ValidationError("sql batch: line \(number) is not a JSON array of strings")
                }
                print(try Self.answerLine(for: arguments))
            }
        }

        /// The JSON line answering one request.
        static func answerLine(for arguments: [String]) throws -> String {
            let answer: [String: String]
            do {
                guard arguments.first != configuration.commandName,
                      let command = try SQLCommand.parseAsRoot(arguments) as? SQLTextCommand else {
                    throw ValidationError("sql batch: each request names one of funnel, kpi, trend, retention, paths, ddl or panel")
                }
                answer = ["sql": try command.sqlText()]
            } catch {
                answer = ["error": SQLCommand.message(for: error)]
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(answer), as: UTF8.self)
        }
    }
}
