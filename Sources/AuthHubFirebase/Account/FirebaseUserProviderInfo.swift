import AuthHub
import Foundation

/// One linked sign-in method of a user (`providerUserInfo[]`, <doc:FirebaseEndpoints>: “Lookup”).
public struct FirebaseUserProviderInfo: Sendable, Hashable, Codable {
    /// `providerId`: `password`, `google.com`, `phone`, …
    public var providerID: String
    /// `rawId`: the user's id at that provider.
    public var rawID: String?
    /// `federatedId`.
    public var federatedID: String?
    /// The email address (`email`).
    public var email: String?
    /// The display name (`displayName`).
    public var displayName: String?
    /// The profile photo URL (`photoUrl`).
    public var photoURL: String?
    /// The phone number (`phoneNumber`).
    public var phoneNumber: String?
    /// The screen name at the provider (`screenName`).
    public var screenName: String?

    /// Creates provider info from values.
    public init(providerID: String, rawID: String? = nil, federatedID: String? = nil, email: String? = nil,
                displayName: String? = nil, photoURL: String? = nil, phoneNumber: String? = nil, screenName: String? = nil) {
        self.providerID = providerID
        self.rawID = rawID
        self.federatedID = federatedID
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.screenName = screenName
    }

    enum CodingKeys: String, CodingKey {
        case providerID = "providerId", rawID = "rawId", federatedID = "federatedId", email, displayName, photoURL = "photoUrl"
        case phoneNumber, screenName
    }

    /// Reads one entry (tolerant: every member but `providerId` optional; an entry without it is `unknown`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(providerID: c.looseString(.providerID) ?? "unknown", rawID: c.firebaseString(.rawID),
                  federatedID: c.firebaseString(.federatedID), email: c.looseString(.email),
                  displayName: c.looseString(.displayName), photoURL: c.looseString(.photoURL),
                  phoneNumber: c.looseString(.phoneNumber), screenName: c.looseString(.screenName))
    }
}
