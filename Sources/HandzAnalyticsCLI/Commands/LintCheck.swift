import ArgumentParser
import Foundation
import HandzLint

/// `handz-analytics lint [check] [PATHS] [--format xcode|json|sarif]`: every diagnostic, as the
/// build shows them; exit 1 when any is an error.
struct LintCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Print every lint diagnostic (path:line:column: error|warning: [rule] message); exit 1 on errors."
    )

    @OptionGroup var input: LintInputOptions

    @Option(help: "xcode (compiler-style lines), json or sarif.")
    var format: LintOutputFormat = .xcode

    func run() throws {
        let (_, report) = try input.lint()
        let output = format.render(report)
        if !output.isEmpty { print(output) }
        FileHandle.standardError.write(Data((report.summary + "\n").utf8))
        if report.errorCount > 0 { throw ExitCode.failure }
    }
}

extension LintOutputFormat: ExpressibleByArgument {}
