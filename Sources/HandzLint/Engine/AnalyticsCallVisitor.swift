import SwiftSyntax

/// Walks one source-accurate syntax tree and collects what the rules look at: the calls that
/// emit events (by the configured call shapes) and the logging calls outside `#if DEBUG`.
final class AnalyticsCallVisitor: SyntaxVisitor {
    private let shapes: [String: CallShape]
    private let loggingFunctions: Set<String>
    private(set) var analyticsCalls: [(call: FunctionCallExprSyntax, shape: CallShape)] = []
    /// Logging calls outside debug-only code: the function name and the callee's node.
    private(set) var loggingCalls: [(name: String, callee: ExprSyntax)] = []
    /// For each enclosing `#if` clause, whether it is debug-only.
    private var clauses: [Bool] = []
    private var debugOnlyDepth = 0

    init(shapes: [CallShape], loggingFunctions: [String]) {
        self.shapes = Dictionary(shapes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.loggingFunctions = Set(loggingFunctions)
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: IfConfigClauseSyntax) -> SyntaxVisitorContinueKind {
        let debugOnly = DebugCondition.isDebugOnly(node)
        clauses.append(debugOnly)
        if debugOnly { debugOnlyDepth += 1 }
        return .visitChildren
    }

    override func visitPost(_ node: IfConfigClauseSyntax) {
        if clauses.removeLast() { debugOnlyDepth -= 1 }
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let callee = node.calledExpression
        let name: String
        let isFreeFunction: Bool
        if let member = callee.as(MemberAccessExprSyntax.self) {
            // `analytics.track(…)`, `Analytics.shared?.track(…)`; `Swift.print(…)` is still `print`.
            name = member.declName.baseName.text
            isFreeFunction = Self.isModuleName(member.base)
        } else if let reference = callee.as(DeclReferenceExprSyntax.self) {
            name = reference.baseName.text
            isFreeFunction = true
        } else {
            return .visitChildren
        }
        if let shape = shapes[name], !node.arguments.isEmpty {
            analyticsCalls.append((node, shape))
        } else if debugOnlyDepth == 0, isFreeFunction, loggingFunctions.contains(name) {
            loggingCalls.append((name, callee))
        }
        return .visitChildren
    }

    /// `Swift.print`, `Foundation.NSLog`, `os.os_log`: the logging functions named through their module.
    private static func isModuleName(_ base: ExprSyntax?) -> Bool {
        guard let name = base?.as(DeclReferenceExprSyntax.self)?.baseName.text else { return false }
        return ["Swift", "Foundation", "os"].contains(name)
    }
}
