import ArgumentParser
import HandzLint

/// `handz-analytics lint status [PATHS] [--strict]`: like `ampli status` — catalogued events the
/// sources never emit, and placeholder events they do emit (CH33 §13 "Event allowlist
/// implemented and matches catalog exactly").
struct LintStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List catalogued events never emitted and placeholder events emitted; --strict exits 1 if either is non-empty."
    )

    enum Format: String, ExpressibleByArgument {
        case text, json
    }

    @OptionGroup var input: LintInputOptions

    @Option(help: "text or json.")
    var format: Format = .text

    @Flag(help: "Exit 1 when an enabled event is never emitted or a placeholder is emitted.")
    var strict = false

    func run() throws {
        let (catalog, report) = try input.lint()
        let status = EmissionStatus(catalog: catalog, emissions: report.emissions)
        print(format == .json ? status.json.serialized() : status.text)
        if strict, !status.isInSync { throw ExitCode.failure }
    }
}
