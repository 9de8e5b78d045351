import enum AuthHub.JSONValue
import Foundation

/// An Openfort (better-auth) user of the emulator.
struct OpenfortUser: Sendable {
    var id: String
    /// Lower-cased. Anonymous users get `temp@<id>.com` (better-auth's form).
    var email: String
    var name: String?
    var image: String?
    var emailVerified: Bool
    var isAnonymous: Bool
    var createdAt: Date
    var updatedAt: Date
    /// The `credential` account's password, when the user has one.
    var password: EmulatorPasswordHash?
    var accounts: [OpenfortAccount] = []

    /// The better-auth User of AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes” (sign-in, sign-up and get-session replies).
    var json: JSONValue {
        [
            "id": .string(id), "email": .string(email), "name": name.map(JSONValue.string) ?? .null,
            "image": image.map(JSONValue.string) ?? .null, "emailVerified": .bool(emailVerified),
            "createdAt": .string(Self.iso(createdAt)), "updatedAt": .string(Self.iso(updatedAt)),
            "isAnonymous": .bool(isAnonymous),
        ]
    }

    /// The AuthUserResponse of `/iam/v2/me` (AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes”): epoch-millisecond `createdAt`.
    var meJSON: JSONValue {
        [
            "id": .string(id), "createdAt": .number(Self.milliseconds(createdAt)), "name": name.map(JSONValue.string) ?? .null,
            "email": isAnonymous ? .null : .string(email), "emailVerified": .bool(emailVerified),
            "phoneNumber": .null, "phoneNumberVerified": false, "isAnonymous": .bool(isAnonymous),
            "linkedAccounts": .array(accounts.map(\.meJSON)),
        ]
    }

    /// ISO-8601 with milliseconds in UTC, e.g. `2026-01-01T00:00:00.000Z`.
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Whole epoch milliseconds.
    static func milliseconds(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1_000).rounded(.down)
    }
}
