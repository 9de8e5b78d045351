import AuthHub
import Foundation

/// One sign-in method linked to a user (`linkedAccounts[]` of `/iam/v2/me`, or `/list-accounts`).
public struct OpenfortLinkedAccount: Sendable, Hashable {
    /// `credential`, `email`, `wallet`, `google`, `apple`, …
    public var provider: String
    /// The account id at that provider, if sent.
    public var accountID: String?
    /// When it was linked.
    public var createdAt: Date?
    /// When it last changed.
    public var updatedAt: Date?
    /// Every member, as sent.
    public var raw: [String: JSONValue]

    /// Reads an entry (a missing `provider` reads as an empty string).
    public init(json: [String: JSONValue]) {
        provider = json["provider"]?.stringValue ?? ""
        accountID = json["accountId"]?.stringValue
        createdAt = json["createdAt"].flatMap(OpenfortDate.read)
        updatedAt = json["updatedAt"].flatMap(OpenfortDate.read)
        raw = json
    }
}
