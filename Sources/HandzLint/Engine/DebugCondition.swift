import SwiftSyntax

/// Decides whether code under an `#if` clause compiles only in debug builds, where logging is
/// allowed (CH33 §1: "dev logs must never ship to production").
///
/// Debug-only: `#if DEBUG`, `#if DEBUG && os(iOS)`, `#if (DEBUG)`, and an `#elseif`/`#else` that
/// follows `#if !DEBUG`. Not debug-only: `#if DEBUG || X`, `#if !DEBUG`, `#else` after `#if DEBUG`.
enum DebugCondition {
    static func isDebugOnly(_ clause: IfConfigClauseSyntax) -> Bool {
        if let condition = clause.condition, implies(condition, debug: true) { return true }
        guard let clauses = clause.parent?.as(IfConfigClauseListSyntax.self) else { return false }
        for earlier in clauses {
            if earlier.id == clause.id { break }
            if let condition = earlier.condition, implies(condition, debug: false) { return true }
        }
        return false
    }

    /// Whether `condition` holding means `DEBUG` is set (`debug: true`) or unset (`debug: false`).
    static func implies(_ condition: ExprSyntax, debug: Bool) -> Bool {
        if let reference = condition.as(DeclReferenceExprSyntax.self) {
            return debug && reference.baseName.text == "DEBUG"
        }
        if let tuple = condition.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first {
            return implies(only.expression, debug: debug)
        }
        if let not = condition.as(PrefixOperatorExprSyntax.self), not.operator.text == "!" {
            return !debug && implies(not.expression, debug: true)
        }
        // `A && B` holds only when both do, so either side may carry the implication.
        if let infix = condition.as(InfixOperatorExprSyntax.self) {
            guard infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text == "&&" else { return false }
            return implies(infix.leftOperand, debug: debug) || implies(infix.rightOperand, debug: debug)
        }
        if let sequence = condition.as(SequenceExprSyntax.self) {
            let operators = sequence.elements.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            guard operators.allSatisfy({ $0.as(BinaryOperatorExprSyntax.self)?.operator.text == "&&" }) else { return false }
            return sequence.elements.enumerated().contains { $0.offset % 2 == 0 && implies($0.element, debug: debug) }
        }
        return false
    }
}
