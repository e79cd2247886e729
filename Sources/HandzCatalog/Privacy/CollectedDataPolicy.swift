/// What the app collects, in Apple's terms (issue 23): each of Apple's collected data types the
/// catalog's properties fall under, whether it is linked to the user, used for tracking, and
/// why it is collected. Read from `collected_data` in `catalog/privacy.yaml`, where every property
/// of `properties.yaml` belongs to exactly one type (`catalog lint` holds that). The client's
/// privacy manifest and the App Store Connect answers are generated from it
/// (``PrivacyManifestWriter``, ``PrivacyReportWriter``).
public struct CollectedDataPolicy: Sendable, Equatable {
    public struct DataType: Sendable, Equatable {
        /// Apple's key, e.g. `NSPrivacyCollectedDataTypeUserID`.
        public var key: String
        public var linked: Bool
        public var tracking: Bool
        /// Apple's purpose keys, e.g. `NSPrivacyCollectedDataTypePurposeAnalytics`.
        public var purposes: [String]
        /// The reasoning, for reviewers and the report.
        public var why: String
        /// The catalog properties of this type.
        public var properties: [String]
        public var location: CatalogLocation

        public init(key: String, linked: Bool, tracking: Bool, purposes: [String], why: String, properties: [String],
                    location: CatalogLocation = CatalogLocation(file: "privacy.yaml", line: 1)) {
            self.key = key
            self.linked = linked
            self.tracking = tracking
            self.purposes = purposes
            self.why = why
            self.properties = properties
            self.location = location
        }
    }

    /// In the order of `privacy.yaml`.
    public var types: [DataType]

    public init(types: [DataType] = []) { self.types = types }

    /// The type a property was classified under (the first, if a broken file names it twice).
    public func dataType(of property: String) -> DataType? {
        types.first { $0.properties.contains(property) }
    }

    /// The collected data types Apple documents for `NSPrivacyCollectedDataType` ("Describing data
    /// use in privacy manifests"), and what App Store Connect calls each.
    public static let appleDataTypes: [String: String] = [
        "NSPrivacyCollectedDataTypeName": "Name",
        "NSPrivacyCollectedDataTypeEmailAddress": "Email Address",
        "NSPrivacyCollectedDataTypePhoneNumber": "Phone Number",
        "NSPrivacyCollectedDataTypePhysicalAddress": "Physical Address",
        "NSPrivacyCollectedDataTypeOtherUserContactInfo": "Other User Contact Info",
        "NSPrivacyCollectedDataTypeHealth": "Health",
        "NSPrivacyCollectedDataTypeFitness": "Fitness",
        "NSPrivacyCollectedDataTypePaymentInfo": "Payment Info",
        "NSPrivacyCollectedDataTypeCreditInfo": "Credit Info",
        "NSPrivacyCollectedDataTypeOtherFinancialInfo": "Other Financial Info",
        "NSPrivacyCollectedDataTypePreciseLocation": "Precise Location",
        "NSPrivacyCollectedDataTypeCoarseLocation": "Coarse Location",
        "NSPrivacyCollectedDataTypeSensitiveInfo": "Sensitive Info",
        "NSPrivacyCollectedDataTypeContacts": "Contacts",
        "NSPrivacyCollectedDataTypeEmailsOrTextMessages": "Emails or Text Messages",
        "NSPrivacyCollectedDataTypePhotosorVideos": "Photos or Videos",
        "NSPrivacyCollectedDataTypeAudioData": "Audio Data",
        "NSPrivacyCollectedDataTypeGameplayContent": "Gameplay Content",
        "NSPrivacyCollectedDataTypeCustomerSupport": "Customer Support",
        "NSPrivacyCollectedDataTypeOtherUserContent": "Other User Content",
        "NSPrivacyCollectedDataTypeBrowsingHistory": "Browsing History",
        "NSPrivacyCollectedDataTypeSearchHistory": "Search History",
        "NSPrivacyCollectedDataTypeUserID": "User ID",
        "NSPrivacyCollectedDataTypeDeviceID": "Device ID",
        "NSPrivacyCollectedDataTypePurchaseHistory": "Purchase History",
        "NSPrivacyCollectedDataTypeProductInteraction": "Product Interaction",
        "NSPrivacyCollectedDataTypeAdvertisingData": "Advertising Data",
        "NSPrivacyCollectedDataTypeOtherUsageData": "Other Usage Data",
        "NSPrivacyCollectedDataTypeCrashData": "Crash Data",
        "NSPrivacyCollectedDataTypePerformanceData": "Performance Data",
        "NSPrivacyCollectedDataTypeOtherDiagnosticData": "Other Diagnostic Data",
        "NSPrivacyCollectedDataTypeEnvironmentScanning": "Environment Scanning",
        "NSPrivacyCollectedDataTypeHands": "Hands",
        "NSPrivacyCollectedDataTypeHead": "Head",
        "NSPrivacyCollectedDataTypeOtherDataTypes": "Other Data Types",
    ]

    /// The purposes Apple documents for `NSPrivacyCollectedDataTypePurposes`, with their App Store
    /// Connect names.
    public static let applePurposes: [String: String] = [
        "NSPrivacyCollectedDataTypePurposeThirdPartyAdvertising": "Third-Party Advertising",
        "NSPrivacyCollectedDataTypePurposeDeveloperAdvertising": "Developer's Advertising or Marketing",
        "NSPrivacyCollectedDataTypePurposeAnalytics": "Analytics",
        "NSPrivacyCollectedDataTypePurposeProductPersonalization": "Product Personalization",
        "NSPrivacyCollectedDataTypePurposeAppFunctionality": "App Functionality",
        "NSPrivacyCollectedDataTypePurposeOther": "Other Purposes",
    ]
}
