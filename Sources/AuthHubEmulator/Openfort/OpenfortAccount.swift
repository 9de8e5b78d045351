import enum AuthHub.JSONValue
import Foundation

/// A linked account of an Openfort user (better-auth `account`): `credential` for the
/// email/password pair, or a social provider (`google`, `apple`, …) with its account id.
struct OpenfortAccount: Sendable, Equatable {
    /// `credential`, `google`, `apple`, …
    var provider: String
    /// The provider's id for the account (the user id for `credential`, the email for the
    /// emulator's social accounts).
    var accountId: String
    var createdAt: Date
    var updatedAt: Date

    /// An entry of `/iam/v2/me`'s `linkedAccounts` (AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes”): epoch milliseconds.
    var meJSON: JSONValue {
        [
            "provider": .string(provider), "accountId": .string(accountId),
            "createdAt": .number(OpenfortUser.milliseconds(createdAt)), "updatedAt": .number(OpenfortUser.milliseconds(updatedAt)),
        ]
    }

    /// An entry of `/list-accounts` (AuthHubOpenfort docs, OpenfortEndpoints: “Endpoints”): ISO-8601 times.
    var listJSON: JSONValue {
        [
            "provider": .string(provider), "accountId": .string(accountId),
            "createdAt": .string(OpenfortUser.iso(createdAt)), "updatedAt": .string(OpenfortUser.iso(updatedAt)),
        ]
    }
}
