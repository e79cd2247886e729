/// Evaluating the rules: each rule kind is a pass over the ordered units of its scope.
extension QAProgram {
    /// Runs every rule over `log`. `inputProblems` are the lines the reader could not use; they
    /// fail the run too (a QA capture that cannot be read has not passed).
    public func run(_ log: QAEventLog, inputProblems: [QAInputProblem] = []) -> QAReport {
        let order = EventOrder(log)
        var results: [QARuleResult] = []
        for rule in ruleSet.rules {
            var context = RuleContext(program: self, rule: rule, log: log, order: order)
            context.evaluate()
            results.append(QARuleResult(rule: rule, violations: context.violations, checked: context.checked))
        }
        return QAReport(results: results, unchecked: ruleSet.unchecked, events: order.byInstall.count, duplicates: order.duplicates,
                        quarantined: log.quarantined.count, inputProblems: inputProblems)
    }
}

/// One rule's evaluation: the ordered log, and the violations found so far.
struct RuleContext {
    let program: QAProgram
    let rule: QARule
    var log: QAEventLog
    let order: EventOrder
    var violations: [QAViolation] = []
    var checked = 0

    init(program: QAProgram, rule: QARule, log: QAEventLog, order: EventOrder) {
        self.program = program
        self.rule = rule
        self.log = log
        self.order = order
    }

    mutating func compile(_ pattern: EventPattern) -> CompiledPattern { CompiledPattern(pattern, log: &log) }

    mutating func evaluate() {
        switch rule.kind {
        case .exactlyOncePer(let event, let scope, let reset):
            exactlyOnce(compile(event), scope, reset.map { compile($0) })
        case .followedBy(let event, let targets, let within, let scope, let same):
            sequence(compile(event), targets.map { compile($0) }, within, scope, same: same, forward: true)
        case .precededBy(let event, let targets, let within, let scope, let same):
            sequence(compile(event), targets.map { compile($0) }, within, scope, same: same, forward: false)
        case .emittedTogether(let event, let partners, let within, let same):
            together(compile(event), partners.map { compile($0) }, within, same: same)
        case .chain(let event, let property, let previous, let scope):
            chain(compile(event), property, previous, scope)
        case .silenceWhile(let property, let value, let scope):
            silence(property, value, scope)
        case .decrement(let event, let property, let by, let reset, let resetProperty, let scope):
            decrement(compile(event), property, by, reset.map { compile($0) }, resetProperty, scope)
        case .minInterval(let event, let interval, let scope):
            minInterval(compile(event), interval, scope)
        case .funnelCompleteness(let funnels):
            funnelCompleteness(funnels)
        case .catalogued:
            catalogued()
        }
    }

    /// Records a violation at `events` (the first one's install and session locate it).
    mutating func fail(_ message: String, _ events: [Int32], session: Bool = true) {
        let shown = events.prefix(QAViolation.maxEvents)
        let first = events.first
        violations.append(QAViolation(
            ruleID: rule.id, message: message,
            installID: first.map { log.installText($0) }, sessionID: session ? first.map { log.sessionText($0) } : nil,
            events: shown.map { log.reference($0) }, omittedEvents: events.count - shown.count))
    }

    /// Whether `a` and `b` agree on every `same` property that both carry.
    func agree(_ a: Int32, _ b: Int32, _ same: [Int]) -> Bool {
        for slot in same {
            let x = log.value(a, slot), y = log.value(b, slot)
            if x != SlotValue.missing, y != SlotValue.missing, x != y { return false }
        }
        return true
    }

    func slots(_ names: [String]) -> [Int] { names.compactMap { log.slots.slot(named: $0) } }
}
