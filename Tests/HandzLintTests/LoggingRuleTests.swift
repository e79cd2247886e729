import HandzLint
import HandzTestSupport
import Testing

/// CH33 §1: "No 'random logging' in code; dev logs must never ship to production".
@Suite struct LoggingRuleTests {
    let emit = #"analytics.track("app_open", properties: [:])"#

    @Test("print, NSLog, debugPrint, dump and os_log outside #if DEBUG are warnings in a file that emits analytics")
    func flagged() {
        let diagnostics = lint("""
            \(emit)
            print("saved")
            NSLog("saved")
            debugPrint(1)
            dump(props)
            os_log("saved")
            Swift.print("saved")
            """)
        #expect(diagnostics.map(\.rule) == Array(repeating: .randomLogging, count: 6))
        #expect(diagnostics.map(\.location.line) == [4, 5, 6, 7, 8, 9])
        #expect(diagnostics.allSatisfy { $0.severity == .warning })
        #expect(diagnostics.first?.message == "'print' outside #if DEBUG in a file that emits analytics")
    }

    @Test("logging under #if DEBUG, DEBUG && X, or the #else of #if !DEBUG is allowed")
    func debugOnly() {
        #expect(findings("""
            \(emit)
            #if DEBUG
            print("a")
            #endif
            #if DEBUG && os(iOS)
            print("b")
            #endif
            #if (DEBUG)
            print("c")
            #endif
            #if !DEBUG
            #else
            print("d")
            #endif
            """) == [])
    }

    @Test("logging under #if !DEBUG, DEBUG || X, or the #else of #if DEBUG is flagged")
    func notDebugOnly() {
        #expect(findings("""
            \(emit)
            #if !DEBUG
            print("a")
            #endif
            #if DEBUG || targetEnvironment(simulator)
            print("b")
            #endif
            #if DEBUG
            #else
            print("c")
            #endif
            """) == ["random_logging@5", "random_logging@8", "random_logging@12"])
    }

    @Test("a file without analytics calls may log; methods named print are not logging")
    func outOfScope() {
        #expect(findings(#"print("loading")"#) == [])
        #expect(findings("\(emit)\nprinter.print(page)\nlogger.dump()") == [])
    }
}
