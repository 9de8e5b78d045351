import AuthHub
import Foundation

/// The value of Turnkey's `X-Stamp-WebAuthn` header (<doc:TurnkeyProtocol>: “Passkey stamp”): a passkey assertion
/// over a request body, as a plain JSON object (not base64) with base64url members.
///
/// Note the member name `clientDataJson` (lower-case "son"), unlike WebAuthn's `clientDataJSON`.
public struct TurnkeyWebAuthnStamp: Sendable, Hashable, Codable {
    /// The header that carries the stamp. Header names are case-insensitive (JS sends `X-Stamp-Webauthn`).
    public static let headerName = "X-Stamp-WebAuthn"

    /// base64url of the authenticator data.
    public var authenticatorData: String
    /// base64url of the raw `clientDataJSON` bytes.
    public var clientDataJson: String
    /// base64url of the credential ID.
    public var credentialId: String
    /// base64url of the DER ECDSA signature.
    public var signature: String

    /// Creates a stamp from its members as they appear on the wire.
    public init(authenticatorData: String, clientDataJson: String, credentialId: String, signature: String) {
        self.authenticatorData = authenticatorData
        self.clientDataJson = clientDataJson
        self.credentialId = credentialId
        self.signature = signature
    }

    /// The stamp of an authenticator's assertion, every member base64url without padding.
    public init(_ assertion: PasskeyAssertion) {
        self.init(authenticatorData: Base64URL.encode(assertion.authenticatorData),
                  clientDataJson: Base64URL.encode(assertion.clientDataJSON),
                  credentialId: Base64URL.encode(assertion.credentialID),
                  signature: Base64URL.encode(assertion.signature))
    }

    /// The header value: the stamp as compact JSON with sorted keys.
    public var headerValue: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding four strings cannot fail.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
