import AuthHub
import Crypto
import Foundation

/// Stamps Turnkey requests with a passkey (<doc:TurnkeyProtocol>: “Passkey stamp”): the WebAuthn challenge is the
/// ASCII bytes of the lower-case hex SHA-256 of the exact request body, the assertion comes from
/// any ``PasskeyAuthenticator`` (on Linux, `SoftwarePasskeyAuthenticator`), and the result is the
/// `X-Stamp-WebAuthn` header value.
///
/// Serialise the body once, stamp those bytes and send those bytes: re-encoding after stamping
/// changes the hash and Turnkey rejects the stamp.
public struct TurnkeyPasskeyStamper: Sendable {
    /// The authenticator that signs.
    public let authenticator: any PasskeyAuthenticator
    /// The RP ID the passkey is registered for.
    public let relyingPartyID: String
    /// The origin the client runs on (`https://<rp id>` by default).
    public let origin: String
    /// Credentials Turnkey knows for the user; empty lets the authenticator pick a discoverable one.
    public let allowCredentials: [[UInt8]]
    /// The user-verification requirement (Turnkey's SDKs default to `preferred`).
    public let userVerification: PasskeyUserVerification

    /// Creates a stamper.
    public init(authenticator: any PasskeyAuthenticator, relyingPartyID: String, origin: String? = nil,
                allowCredentials: [[UInt8]] = [], userVerification: PasskeyUserVerification = .preferred) {
        self.authenticator = authenticator
        self.relyingPartyID = relyingPartyID
        self.origin = origin ?? "https://\(relyingPartyID)"
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
    }

    /// The WebAuthn challenge for `body`: the 64 ASCII bytes of `hex(SHA-256(body))`.
    public static func challenge(for body: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined().utf8)
    }

    /// Signs `body` with the passkey and returns the stamp.
    /// - Throws: the authenticator's ``AuthError`` (no passkey, user cancelled, …).
    public func stamp(_ body: [UInt8]) async throws -> TurnkeyWebAuthnStamp {
        let assertion = try await authenticator.getAssertion(PasskeyAssertionOptions(
            relyingPartyID: relyingPartyID, challenge: Self.challenge(for: body), origin: origin,
            allowCredentials: allowCredentials, userVerification: userVerification))
        return TurnkeyWebAuthnStamp(assertion)
    }
}
