extension ValidationRun {
    /// The semantic pass over the recorded spans: event name, required properties, value checks.
    /// Returns the catalogued event's index, or -1.
    mutating func checkFields() -> Int {
        let eventIndex = checkEventName()
        if seenTopMask & tables.requiredTopMask != tables.requiredTopMask {
            for i in 0..<tables.requiredTopLevelCount {
                let id = Int(tables.requiredTopLevel[i])
                if spans[id].generation != generation {
                    issues.add(.missingProperty, path(id, inProperties: false), "required global property is missing (CH33 §3.2)")
                }
            }
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
        let id = tables.eventNameID
        guard id >= 0, spans[id].generation == generation else { return -1 }
        let span = spans[id]
        guard span.kind == .string else {
            issues.add(.typeMismatch, "/event_name", "expected a string, got \(span.kind.name)")
            return -1
        }
        let symbols = tables.symbols
        let index = knownEvent >= 0 ? knownEvent : withStringBytes(span) { p, n in symbols.lookup(CompiledCatalog.eventNamespace, p, n) }
        guard index >= 0 else {
            issues.add(.unknownEvent, "/event_name", "event name is not in the catalog (CH33 §6 authority, §10 allowlist)")
            scanForPII(span, path: .literal("/event_name"))
            return -1
        }
        if !tables.eventEnabled[index] {
            issues.add(.eventDisabled, "/event_name", "event `\(catalog.eventNames[index])` is a placeholder, disabled until enabled in the catalog")
        }
        return index
    }

    /// Checks one `properties` value against the event's rule for it (or the property's global
    /// rule when the event is unknown).
    @inline(__always)
    mutating func checkEventProperty(_ id: Int, eventIndex: Int) {
        guard eventIndex >= 0 else {
            checkValue(id, check: Int(tables.globalCheck[id]), inProperties: true)
            return
        }
        let check = Int(tables.eventRules[eventIndex &* tables.propertyCount &+ id])
        if check < 0 {
            issues.add(.unknownProperty, path(id, inProperties: true), "property is not declared for event `\(catalog.eventNames[eventIndex])`")
            if spans[id].kind == .string { scanForPII(spans[id], path: .property(id, inProperties: true)) }
        } else {
            checkValue(id, check: check, inProperties: true)
        }
    }

    mutating func checkProperties(eventIndex: Int) {
        if !propertiesCheckedInline {
            for i in 0..<propertiesCount { checkEventProperty(Int(seenProperties[i]), eventIndex: eventIndex) }
        }
        guard eventIndex >= 0 else { return }
        var allPresent = true
        let required = tables.eventRequiredBits + eventIndex * tables.bitWords
        for w in 0..<tables.bitWords where required[w] & ~storage.seenBits[w] != 0 { allPresent = false }
        if allPresent { return }
        for i in Int(tables.requiredOffsets[eventIndex])..<Int(tables.requiredOffsets[eventIndex + 1]) {
            let id = Int(tables.requiredIDs[i])
            if spans[id].generation != generation {
                issues.add(.missingProperty, path(id, inProperties: true), "required by event `\(catalog.eventNames[eventIndex])`")
            }
        }
    }

    /// Checks one recorded value against one compiled check. The common case — a valid value —
    /// runs inline with no reporting code in the way; anything else goes to `checkValueSlowly`.
    @inline(__always)
    mutating func checkValue(_ id: Int, check checkIndex: Int, inProperties: Bool) {
        let span = spans[id]
        if span.isVerified { return }
        let check = tables.checks[checkIndex]
        var valid = false
        if check.isEnabled {
            switch check.type {
            case .boolean:
                valid = span.kind == .boolTrue || (span.kind == .boolFalse && id != tables.optInID)
            case .integer:
                valid = span.kind == .number && span.isInteger && !span.isOverflow
                    && span.integerValue >= check.minimum && span.integerValue <= check.maximum
            case .string:
                if span.kind == .string && !span.isEscaped {
                    let p = UnsafeRawPointer(scanner.p + Int(span.start))
                    let n = Int(span.length)
                    if check.enumNamespace >= 0 {
                        valid = predictedMember(span, namespace: Int(check.enumNamespace), checkIndex: checkIndex)
                    } else if let format = check.format {
                        let matched = format == .ianaTimeZone
                            ? predictedMember(span, namespace: CompiledCatalog.timeZoneNamespace, checkIndex: checkIndex)
                            : format.matches(p, n)
                        // A matching value is scanned only when its format can carry a PII pattern.
                        valid = matched && (!format.canCarryPII || PIIValueScanner.scan(p, n) == nil)
                    }
                }
            }
        }
        if !valid { checkValueSlowly(id, check: checkIndex, inProperties: inProperties) }
    }

    /// The full check with reporting, for values the fast path did not accept (and escaped strings).
    @inline(never)
    mutating func checkValueSlowly(_ id: Int, check checkIndex: Int, inProperties: Bool) {
        let span = spans[id]
        let check = tables.checks[checkIndex]
        guard check.isEnabled else {
            issues.add(.unknownProperty, path(id, inProperties: inProperties), "placeholder property, disabled until enabled in the catalog")
            return
        }
        switch check.type {
        case .boolean:
            if span.kind == .boolFalse && id == tables.optInID {
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
                issues.add(.outOfRange, path(id, inProperties: inProperties), "expected \(catalog.checkInfo[checkIndex].expectation)")
            }
        case .string:
            // A format with an integer form (build_number, §3.2 "string/int") also takes a JSON
            // integer in its range.
            if span.kind == .number, let range = check.format?.integerForm {
                if !span.isInteger || span.isOverflow || !range.contains(span.integerValue) {
                    issues.add(.typeMismatch, path(id, inProperties: inProperties), "expected a string or an integer in \(range.lowerBound)...\(range.upperBound)")
                }
                return
            }
            guard span.kind == .string else {
                issues.add(.typeMismatch, path(id, inProperties: inProperties), "expected a string, got \(span.kind.name)")
                return
            }
            checkString(span, check: check, checkIndex: checkIndex, id: id, inProperties: inProperties)
        }
    }

    mutating func checkString(_ span: FieldSpan, check: PropertyCheck, checkIndex: Int, id: Int, inProperties: Bool) {
        let symbols = tables.symbols
        if check.enumNamespace >= 0 {
            let namespace = Int(check.enumNamespace)
            let found = withStringBytes(span) { p, n in symbols.lookup(namespace, p, n) }
            if found < 0 {
                let info = catalog.checkInfo[checkIndex]
                issues.add(.invalidEnum, path(id, inProperties: inProperties), "expected \(info.expectation) of `\(info.name)`")
                scanForPII(span, path: .property(id, inProperties: inProperties))
            }
            return
        }
        guard let format = check.format else { return }
        let matched: Bool
        if format == .ianaTimeZone {
            matched = withStringBytes(span) { p, n in symbols.lookup(CompiledCatalog.timeZoneNamespace, p, n) >= 0 }
        } else {
            matched = withStringBytes(span) { p, n in format.matches(p, n) }
        }
        if !matched {
            issues.add(format.errorCode, path(id, inProperties: inProperties), "expected \(format.summary)")
        }
        if !matched || format.canCarryPII {
            scanForPII(span, path: .property(id, inProperties: inProperties))
        }
    }

    /// Whether an unescaped string is in `namespace`, trying the entry this check matched last
    /// time before the hash lookup, and remembering the entry it matches.
    @inline(__always)
    func predictedMember(_ span: FieldSpan, namespace: Int, checkIndex: Int) -> Bool {
        let symbols = tables.symbols
        let p = UnsafeRawPointer(scanner.p + Int(span.start))
        let n = Int(span.length)
        let guess = Int(storage.valuePrediction[checkIndex])
        if guess >= 0 && symbols.entryMatches(guess, p, n) { return true }
        let entry = symbols.entry(namespace, p, n)
        if entry >= 0 { storage.valuePrediction[checkIndex] = Int32(entry) }
        return entry >= 0
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
        scanner.decodeString(start: Int(span.start), length: Int(span.length), into: &storage.scratch)
        let fallback = UnsafeRawPointer(scanner.p)
        return storage.scratch.withUnsafeBytes { body($0.baseAddress ?? fallback, $0.count) }
    }
}
