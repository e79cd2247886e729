extension ValidationRun {
    /// The semantic pass over the recorded spans: event name, required properties, value checks.
    /// Returns the catalogued event's index, or -1.
    mutating func checkFields() -> Int {
        let eventIndex = checkEventName()
        for i in 0..<catalog.requiredTopLevel.count {
            let id = Int(catalog.requiredTopLevel[i])
            if spans[id].generation != generation {
                issues.add(.missingProperty, path(id, inProperties: false), "required global property is missing (CH33 §3.2)")
            }
        }
        for i in 0..<topCount {
            let id = Int(seenTop[i])
            if id == catalog.eventNameID { continue }
            checkValue(id, check: Int(catalog.globalCheck[id]), inProperties: false)
        }
        switch properties {
        case .absent:
            issues.add(.missingProperty, "/properties", "every event carries a `properties` object (it may be empty)")
        case .wrongType(let kind):
            issues.add(.typeMismatch, "/properties", "expected an object, got \(kind.name)")
        case .object:
            checkProperties(eventIndex: eventIndex)
        }
        return eventIndex
    }

    mutating func checkEventName() -> Int {
        let id = catalog.eventNameID
        guard id >= 0, spans[id].generation == generation else { return -1 }
        let span = spans[id]
        guard span.kind == .string else {
            issues.add(.typeMismatch, "/event_name", "expected a string, got \(span.kind.name)")
            return -1
        }
        let table = catalog.eventTable
        let index = withStringBytes(span) { p, n in table.lookup(p, n) }
        guard index >= 0 else {
            issues.add(.unknownEvent, "/event_name", "event name is not in the catalog (CH33 §6 authority, §10 allowlist)")
            scanForPII(span, path: .literal("/event_name"))
            return -1
        }
        if !catalog.events[index].isEnabled {
            issues.add(.eventDisabled, "/event_name", "event `\(catalog.events[index].name)` is a placeholder, disabled until enabled in the catalog")
        }
        return index
    }

    mutating func checkProperties(eventIndex: Int) {
        for i in 0..<propertiesCount {
            let id = Int(seenProperties[i])
            if eventIndex >= 0 {
                let check = Int(catalog.events[eventIndex].ruleCheck[id])
                if check < 0 {
                    issues.add(.unknownProperty, path(id, inProperties: true), "property is not declared for event `\(catalog.events[eventIndex].name)`")
                    if spans[id].kind == .string { scanForPII(spans[id], path: .property(id, inProperties: true)) }
                } else {
                    checkValue(id, check: check, inProperties: true)
                }
            } else {
                checkValue(id, check: Int(catalog.globalCheck[id]), inProperties: true)
            }
        }
        guard eventIndex >= 0 else { return }
        let required = catalog.events[eventIndex].required
        for i in 0..<required.count {
            let id = Int(required[i])
            if spans[id].generation != generation {
                issues.add(.missingProperty, path(id, inProperties: true), "required by event `\(catalog.events[eventIndex].name)`")
            }
        }
    }

    /// Checks one recorded value against one compiled check.
    @inline(__always)
    mutating func checkValue(_ id: Int, check checkIndex: Int, inProperties: Bool) {
        let span = spans[id]
        let check = catalog.checks[checkIndex]
        guard check.isEnabled else {
            issues.add(.unknownProperty, path(id, inProperties: inProperties), "placeholder property, disabled until enabled in the catalog")
            return
        }
        switch check.type {
        case .boolean:
            if span.kind == .boolFalse && id == catalog.optInID {
                issues.add(.optedOut, path(id, inProperties: inProperties), "analytics is off: events must not be sent (CH33 §2.2)")
            } else if span.kind != .boolTrue && span.kind != .boolFalse {
                issues.add(.typeMismatch, path(id, inProperties: inProperties), "expected a boolean, got \(span.kind.name)")
            }
        case .integer:
            guard span.kind == .number, span.isInteger else {
                let got = span.kind == .number ? "a number with a fraction or exponent" : span.kind.name
                issues.add(.typeMismatch, path(id, inProperties: inProperties), "expected an integer, got \(got)")
                return
            }
            if span.isOverflow || span.integerValue < check.minimum || span.integerValue > check.maximum {
                issues.add(.outOfRange, path(id, inProperties: inProperties), "expected \(check.expectation)")
            }
        case .string:
            guard span.kind == .string else {
                issues.add(.typeMismatch, path(id, inProperties: inProperties), "expected a string, got \(span.kind.name)")
                return
            }
            checkString(span, check: check, id: id, inProperties: inProperties)
        }
    }

    @inline(__always)
    mutating func checkString(_ span: FieldSpan, check: PropertyCheck, id: Int, inProperties: Bool) {
        if check.enumTable >= 0 {
            let table = catalog.enumTables[check.enumTable]
            let found = withStringBytes(span) { p, n in table.lookup(p, n) }
            if found < 0 {
                issues.add(.invalidEnum, path(id, inProperties: inProperties), "expected \(check.expectation) of `\(check.name)`")
                scanForPII(span, path: .property(id, inProperties: inProperties))
            }
            return
        }
        guard let format = check.format else { return }
        let matched: Bool
        if format == .ianaTimeZone {
            let zones = catalog.timeZoneTable
            matched = withStringBytes(span) { p, n in zones.lookup(p, n) >= 0 }
        } else {
            matched = withStringBytes(span) { p, n in format.matches(p, n) }
        }
        if !matched {
            issues.add(format.errorCode, path(id, inProperties: inProperties), "expected \(format.summary)")
        }
        // A valid UUID is hex in fixed groups and cannot hold PII patterns (see PIIValueScanner).
        if !(matched && format == .uuid) {
            scanForPII(span, path: .property(id, inProperties: inProperties))
        }
    }

    mutating func scanForPII(_ span: FieldSpan, path: PathReference) {
        if let kind = withStringBytes(span, { p, n in PIIValueScanner.scan(p, n) }) {
            issues.add(.piiValue, resolve(path), "value looks like \(Self.article(kind)) \(kind.rawValue); it was not stored")
        }
    }

    /// Calls `body` with the string's bytes, decoding escapes into the scratch buffer if needed.
    @inline(__always)
    mutating func withStringBytes<R>(_ span: FieldSpan, _ body: (UnsafeRawPointer, Int) -> R) -> R {
        if !span.isEscaped {
            return body(UnsafeRawPointer(scanner.p + Int(span.start)), Int(span.length))
        }
        scanner.decodeString(start: Int(span.start), length: Int(span.length), into: &scratch)
        let fallback = UnsafeRawPointer(scanner.p)
        return scratch.withUnsafeBytes { body($0.baseAddress ?? fallback, $0.count) }
    }
}
