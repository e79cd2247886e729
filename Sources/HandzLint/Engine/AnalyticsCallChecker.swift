import HandzAnalyticsCore
import SwiftSyntax

/// A finding before it has a line and column: the rule, where in the file, and the message.
struct Finding {
    var rule: LintRule
    var position: AbsolutePosition
    var message: String
    var hint: String?
}

/// Applies the event and property rules to analytics calls, one at a time, collecting findings
/// and the events the calls emit.
struct AnalyticsCallChecker {
    let catalog: LintCatalog
    private(set) var findings: [Finding] = []
    private(set) var emissions: [(event: String, position: AbsolutePosition)] = []

    init(catalog: LintCatalog) { self.catalog = catalog }

    mutating func check(_ call: FunctionCallExprSyntax, shape: CallShape) {
        let properties = call.arguments.first { $0.label?.text == shape.propertiesLabel }
        let eventArgument = shape.eventLabel.map { label in call.arguments.first { $0.label?.text == label } } ?? call.arguments.first
        guard let eventArgument, eventArgument.id != properties?.id else { return }
        let event = checkEvent(eventArgument.expression, stringBased: properties != nil)
        if let properties { checkProperties(properties.expression, of: event) }
    }

    // MARK: Events (CH33 §1 "Event Catalog Authority", §6, §8.1)

    /// Checks the event argument; returns the catalogued event it names, if any.
    private mutating func checkEvent(_ expression: ExprSyntax, stringBased: Bool) -> EventDefinition? {
        if let literal = expression.as(StringLiteralExprSyntax.self) {
            guard let name = literal.representedLiteralValue else {
                add(.dynamicEventName, at: expression, "event name is an interpolated string")
                return nil
            }
            guard let event = catalog.event(named: name) else {
                // The literal is echoed only when it looks like an event name; anything else (an
                // email pasted by mistake, free text) is never copied into diagnostics or the cache.
                let shown = isSnakeCase(name) && name.utf8.count <= 64 ? "'\(name)'" : "this literal"
                add(.unknownEvent, at: expression, "\(shown) is not a catalogued event")
                return nil
            }
            return emitted(event, at: expression)
        }
        // The generated typed API: `track(AppOpen(startType: .cold, launchSource: .direct))`.
        if !stringBased, let construction = expression.as(FunctionCallExprSyntax.self), let typeName = Self.typeName(construction.calledExpression) {
            let event = catalog.event(typeName: typeName)
            if let event {
                _ = emitted(event, at: expression)
            } else {
                add(.unknownEvent, at: expression, "'\(typeName)' is not a generated event type: no catalogued event '\(EventNaming.snakeCase(typeName))'")
            }
            for argument in construction.arguments {
                if let label = argument.label {
                    let property = catalog.propertyName(label: label.text) ?? EventNaming.snakeCase(label.text)
                    checkKey(property, spelled: label.text, of: event, at: Syntax(label))
                }
                scanLiterals(in: Syntax(argument.expression))
            }
            return event
        }
        add(.dynamicEventName, at: expression, "event name is computed at run time, so the lint cannot check it")
        return nil
    }

    /// Records an emission; a placeholder is also reported (CH33 §6: disabled until enabled).
    private mutating func emitted(_ event: EventDefinition, at node: some SyntaxProtocol) -> EventDefinition {
        emissions.append((event.name, node.positionAfterSkippingLeadingTrivia))
        if !event.isEnabled {
            add(.eventDisabled, at: node, "'\(event.name)' is a disabled placeholder from \(event.spec)")
        }
        return event
    }

    /// `AppOpen` in `AppOpen(…)` or `Events.AppOpen(…)`: an UpperCamelCase type that is not a string type.
    private static func typeName(_ callee: ExprSyntax) -> String? {
        let name = callee.as(DeclReferenceExprSyntax.self)?.baseName.text ?? callee.as(MemberAccessExprSyntax.self)?.declName.baseName.text
        guard let name, let first = name.first, first.isUppercase, !["String", "Substring", "NSString"].contains(name) else { return nil }
        return name
    }

    // MARK: Properties (CH33 §6, §8.1)

    private mutating func checkProperties(_ expression: ExprSyntax, of event: EventDefinition?) {
        guard let dictionary = expression.as(DictionaryExprSyntax.self) else {
            add(.dynamicProperties, at: expression, "properties are not a dictionary literal, so the lint cannot check their keys")
            scanLiterals(in: Syntax(expression))
            return
        }
        guard case .elements(let elements) = dictionary.content else { return }
        for element in elements {
            if let key = element.key.as(StringLiteralExprSyntax.self)?.representedLiteralValue {
                checkKey(key, spelled: key, of: event, at: Syntax(element.key))
            } else {
                add(.dynamicProperties, at: element.key, "property key is not a string literal, so the lint cannot check it")
            }
            scanLiterals(in: Syntax(element.value))
        }
    }

    /// The PII key lint first (a PII key is never declared, so saying it is undeclared adds
    /// nothing), then whether the event declares the property.
    private mutating func checkKey(_ property: String, spelled: String, of event: EventDefinition?, at node: Syntax) {
        switch catalog.keyLint.check(property) {
        case .denied(let token):
            add(.piiKey, at: node, "property key '\(spelled)' contains the PII token '\(token)'")
            return
        case .valueLike(let kind):
            add(.piiKey, at: node, "property key looks like \(kind.withArticle)")
            return
        case .clean, .reviewed:
            break
        }
        guard let event, let problem = catalog.propertyProblem(property, on: event) else { return }
        let declared = catalog.declaredProperties(of: event).joined(separator: ", ")
        add(.unknownProperty, at: node, problem, hint: "use one of the properties '\(event.name)' declares (\(declared)), or declare it in catalog/events/")
    }

    // MARK: Values (CH33 §1, §13)

    /// Runs the PII value scan on every string literal inside a property value. Messages say
    /// what the literal looks like, never what it is.
    private mutating func scanLiterals(in node: Syntax) {
        if let literal = node.as(StringLiteralExprSyntax.self) {
            let text = literal.representedLiteralValue
                ?? literal.segments.compactMap { $0.as(StringSegmentSyntax.self)?.content.text }.joined(separator: " ")
            if !Self.isPIIFreeFormat(text), let kind = PIIValueScanner.scan(text) {
                add(.piiValue, at: literal, "string literal looks like \(kind.withArticle)")
            }
        }
        for child in node.children(viewMode: .sourceAccurate) { scanLiterals(in: child) }
    }

    /// A UUID, timestamp, locale, OS version or device model cannot hold PII, though a UUID's
    /// digits can look like a phone number: the validator skips these formats too.
    private static func isPIIFreeFormat(_ text: String) -> Bool {
        StringFormat.allCases.contains { !$0.canCarryPII && $0.matches(text) }
    }

    private mutating func add(_ rule: LintRule, at node: some SyntaxProtocol, _ message: String, hint: String? = nil) {
        findings.append(Finding(rule: rule, position: node.positionAfterSkippingLeadingTrivia, message: message, hint: hint))
    }
}

extension PIIKind {
    /// "an email address", "a phone number".
    var withArticle: String {
        (rawValue.first.map { "aeiouAEIOU".contains($0) } == true ? "an " : "a ") + rawValue
    }
}
