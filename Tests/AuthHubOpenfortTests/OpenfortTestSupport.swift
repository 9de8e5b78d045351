import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import AuthHubTesting
import Foundation

enum OF {
    static let key = "pk_test_00000000-0000-0000-0000-000000000000"
    static let base = "https://api.openfort.io"
    static let configuration = OpenfortConfiguration(publishableKey: key, baseURL: URL(string: base)!)
    static let nativeConfiguration = OpenfortConfiguration(publishableKey: key, baseURL: URL(string: base)!,
                                                           nativeAppIdentifier: "com.example.app")

    static func path(_ endpoint: String) -> String { "/iam/v2/auth/" + endpoint }

    static func provider(_ transport: StubTransport, _ clock: FakeClock = FakeClock(),
                         configuration: OpenfortConfiguration = OF.configuration) -> OpenfortProvider {
        OpenfortProvider(id: "openfort", configuration: configuration,
                         context: ProviderContext(transport: transport, clock: clock))
    }

    static func user(id: String = "user-1", email: String = "jane@example.com", anonymous: Bool = false) -> JSONValue {
        ["id": .string(id), "email": .string(email), "name": .string(email), "image": nil, "emailVerified": false,
         "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z", "isAnonymous": .bool(anonymous)]
    }

    static func authReply(token: String? = "tok-1", id: String = "user-1", anonymous: Bool = false) -> JSONValue {
        ["redirect": false, "token": token.map(JSONValue.string) ?? .null, "url": nil, "user": user(id: id, anonymous: anonymous)]
    }

    static func sessionReply(token: String = "tok-1", id: String = "user-1", expiresAt: String = "2026-01-08T00:00:00.000Z") -> JSONValue {
        ["session": ["id": "sess-1", "token": .string(token), "userId": .string(id), "expiresAt": .string(expiresAt),
                     "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"],
         "user": user(id: id)]
    }

    static let meReply: JSONValue = [
        "id": "user-1", "createdAt": 1_767_225_600_000, "name": "jane", "email": "jane@example.com", "emailVerified": true,
        "phoneNumber": nil, "phoneNumberVerified": false, "isAnonymous": false,
        "linkedAccounts": [["provider": "credential", "createdAt": 1_767_225_600_000, "updatedAt": "1767225600"]],
    ]
}

extension StubTransport.Request {
    /// A header value by case-insensitive name.
    func header(_ name: String) -> String? { headerFields[name] }
}
