import HandzAnalyticsCore

/// The checks on a funnel's success condition and on the links of a funnel across people
/// (HandzQuery docs, "Funnel semantics"): every event and property they name exists and is carried, and the
/// shape is one the query builders and the chain walk implement.
extension Lint {
    mutating func checkSuccessAndLinks(_ funnel: FunnelDefinition, at location: CatalogLocation, byName: [String: EventDefinition]) {
        let id = funnel.id
        let count = funnel.steps.count
        guard let success = funnel.successCondition else {
            error(location, "funnel \(id) needs a success condition (CH33 §5.1 \"Success\")")
            return
        }
        if !(1...max(count, 1)).contains(success.afterStep) {
            error(location, "funnel \(id) success: after_step must be a step of the funnel (1…\(count))")
        }
        if success.events.isEmpty && success.filters.isEmpty {
            error(location, "funnel \(id) success names neither events nor a where filter")
        }
        for name in success.events {
            guard let event = byName[name] else { error(location, "funnel \(id) success: \(name) is not a catalogued event"); continue }
            if !event.isEnabled { error(location, "funnel \(id) success: \(name) is a disabled placeholder") }
            for filter in success.filters { checkFilter(filter, event: event, at: location, step: "funnel \(id) success") }
            if let differs = success.differs { checkCarried(differs.property, on: [name], at: location, "funnel \(id) success differs", byName) }
        }
        if success.events.isEmpty {
            for filter in success.filters where !topLevel.contains(filter.property) {
                error(location, "funnel \(id) success: without events, a where filter must be on an envelope property (\(filter.property) is not)")
            }
        }
        if let firstBy = success.firstBy {
            if success.events.isEmpty { error(location, "funnel \(id) success first_by needs the success's events") }
            checkCarried(firstBy, on: success.events, at: location, "funnel \(id) success first_by", byName)
        }
        if let differs = success.differs {
            if !(1...max(count, 1)).contains(differs.step) { error(location, "funnel \(id) success differs: step \(differs.step) is not a step") }
            else { checkCarried(differs.stepProperty, on: funnel.steps[differs.step - 1].events, at: location, "funnel \(id) success differs", byName) }
        }

        let handoffs = funnel.steps.indices.filter { funnel.steps[$0].otherActor }
        if handoffs.count > 1 { error(location, "funnel \(id) hands over to another actor more than once (at most one `actor: other` step)") }
        for (index, step) in funnel.steps.enumerated() {
            let at = sources.funnelSteps["\(id)/\(index + 1)"] ?? location
            let context = "funnel \(id) step \(index + 1)"
            if index == 0 && step.otherActor { error(at, "\(context): step 1 cannot be reached by another actor") }
            guard let link = step.link else {
                if step.otherActor { error(at, "\(context): a step reached by another actor needs a link to an earlier step") }
                continue
            }
            guard let handoff = handoffs.first else {
                checkChainKeyLink(funnel, link: link, step: step, index: index, at: at, context: context, byName: byName)
                continue
            }
            guard index >= handoff else {
                error(at, "\(context): in a funnel across people, links are on the steps from the `actor: other` step on")
                continue
            }
            guard (1...index).contains(link.step) else { error(at, "\(context) link: step \(link.step) is not an earlier step"); continue }
            // The first actor's side hands over one event: its last step's (step H).
            if link.step <= handoff && link.step != handoff { error(at, "\(context) link: a link to the first actor's steps names step \(handoff), the last of them") }
            if index == handoff && link.step != handoff { error(at, "\(context) link: the hand-off links to step \(handoff), the first actor's last step") }
            checkCarried(link.property, on: step.events, at: at, "\(context) link", byName)
            checkCarried(link.stepProperty, on: funnel.steps[link.step - 1].events, at: at, "\(context) link", byName)
        }
        if let handoff = handoffs.first, let differs = success.differs, differs.step < handoff {
            error(location, "funnel \(id) success differs: in a funnel across people it compares with step \(handoff) or later")
        }
        if let handoff = handoffs.first, success.afterStep <= handoff {
            error(location, "funnel \(id) success: in a funnel across people it follows a step of the other actor (after_step > \(handoff))")
        }
    }

    /// A link in a single-actor funnel ties every step to step 1's id (F4: one mastery plan,
    /// ``FunnelDefinition/chainKey``): each later step links to step 1 by the same
    /// `step_property`, and an event in several steps carries the id in one property — the
    /// shape the chain walk and the SQL implement (a chain per actor and id).
    mutating func checkChainKeyLink(_ funnel: FunnelDefinition, link: FunnelLink, step: FunnelStep, index: Int, at: CatalogLocation, context: String,
                                    byName: [String: EventDefinition]) {
        let keyed = "in a single-actor funnel, links tie every step after the first to step 1 by one step_property"
        guard link.step == 1, funnel.chainKey != nil else { error(at, "\(context) link: \(keyed)"); return }
        checkCarried(link.property, on: step.events, at: at, "\(context) link", byName)
        if index == 1 { checkCarried(link.stepProperty, on: funnel.steps[0].events, at: at, "\(context) link", byName) }
        for event in step.events {
            let earlier = funnel.steps[0..<index].enumerated().filter { $0.element.events.contains(event) }
            for (offset, other) in earlier where (offset == 0 ? link.stepProperty : other.link?.property) != link.property {
                error(at, "\(context) link: \(event) is in step \(offset + 1) too and must carry the id in the same property there")
            }
        }
    }

    /// `property` is a string property every one of `events` carries.
    mutating func checkCarried(_ property: String, on events: [String], at: CatalogLocation, _ context: String, _ byName: [String: EventDefinition]) {
        for name in events {
            guard let event = byName[name] else { continue }
            guard catalog.allowedProperties(of: event).contains(where: { $0.name == property }) || topLevel.contains(property) else {
                error(at, "\(context): \(name) does not carry \(property)")
                continue
            }
        }
    }
}
