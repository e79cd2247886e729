import HandzAnalyticsCore
import HandzTestSupport
import Testing

@Suite struct PIIKeyLintTests {
    let lint = PIIKeyLint(policy: RepositoryCatalog.catalog.privacy)

    @Test("denied tokens are found in snake_case, camelCase, plurals and compounds", arguments: [
        ("user_email", "email"), ("userEmail", "email"), ("emails", "email"), ("useremail", "email"),
        ("phone_number", "phone"), ("mobilePhone", "mobile"), ("first_name", "name"), ("opponent_name", "opponent"),
        ("move_notes", "notes"), ("custom_description", "description"), ("ip_address", "ip"), ("client_ip", "ip"),
        ("home_address", "address"), ("password_hash", "password"), ("idfa", "idfa"), ("video_url", "url"),
    ])
    func denied(key: String, token: String) {
        #expect(lint.check(key) == .denied(token: token), "\(key)")
    }

    @Test("innocent keys pass, including ones that merely contain a short denied word", arguments: [
        "flow_id", "entitlement_snapshot_loaded", "tip_count", "shipping_zone", "branches_count", "has_media_link",
        "notif_enabled", "share_link_id", "template_used", "maintenance_enabled", "multiple",
    ])
    func clean(key: String) {
        #expect(lint.check(key) == .clean, "\(key)")
    }

    @Test("reviewed identifiers are allowed, and the lint says why", arguments: ["screen_name", "gate_name", "field_name", "limit_name", "previous_screen_name"])
    func reviewed(key: String) {
        guard case .reviewed(let token, let reason) = lint.check(key) else {
            Issue.record("\(key) should be reviewed")
            return
        }
        #expect(token == "name")
        #expect(!reason.isEmpty)
    }

    @Test("a key that looks like a PII value is flagged")
    func valueLikeKeys() {
        #expect(lint.check("someone@example.com") == .valueLike(.emailAddress))
        #expect(lint.check("5551234567") == .valueLike(.phoneNumber))
    }

    @Test("every catalogued key passes the lint")
    func catalogKeysPass() {
        for name in RepositoryCatalog.catalog.properties.keys {
            #expect(lint.check(name).isAllowed, "\(name)")
        }
    }
}
