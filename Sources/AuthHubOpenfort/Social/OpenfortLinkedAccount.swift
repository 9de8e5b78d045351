import AuthHub
import Foundation

/// One sign-in method linked to a user (`linkedAccounts[]` of `/iam/v2/me`, or `/list-accounts`).
public struct OpenfortLinkedAccount: Sendable, Hashable, Codable {
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

    enum CodingKeys: String, CodingKey { case provider, accountID = "accountId", createdAt, updatedAt }

    /// Reads an entry (a missing `provider` reads as an empty string).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = c.looseString(.provider) ?? ""
        accountID = c.looseString(.accountID)
        createdAt = c.looseDate(.createdAt)
        updatedAt = c.looseDate(.updatedAt)
        // Open by nature: provider-specific members (scopes, wallet details) are kept as sent.
        raw = try KeyedDecodingContainer<CodingKeys>.openObject(decoder)
    }

    /// Writes the entry as it was read (``raw``).
    public func encode(to encoder: any Encoder) throws {
        try raw.encode(to: encoder)
    }
}
