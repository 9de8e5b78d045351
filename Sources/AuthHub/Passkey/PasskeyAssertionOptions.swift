import Foundation

/// What a relying party asks an authenticator to sign: the equivalent of the
/// `PublicKeyCredentialRequestOptions` passed to `navigator.credentials.get`, plus the client's origin.
///
/// ``init(json:origin:)`` reads `PublicKeyCredentialRequestOptionsJSON` (Auth0's login
/// `authn_params_public_key`). Turnkey builds its challenge from the request body instead; see
/// its provider module.
public struct PasskeyAssertionOptions: Sendable, Hashable {
    /// The RP ID the credential must be scoped to.
    public var relyingPartyID: String
    /// The relying party's one-time challenge.
    public var challenge: [UInt8]
    /// The origin of the client (`https://example.com`); it lands in `clientDataJSON`.
    public var origin: String
    /// Credentials the relying party accepts; empty means any discoverable credential for the RP ID.
    public var allowCredentials: [[UInt8]]
    /// The user-verification requirement.
    public var userVerification: PasskeyUserVerification
    /// How long the client should wait for the user, if the relying party said.
    public var timeout: Duration?

    /// Creates options.
    /// - Parameter origin: defaults to `https://<rp id>`.
    public init(
        relyingPartyID: String,
        challenge: [UInt8],
        origin: String? = nil,
        allowCredentials: [[UInt8]] = [],
        userVerification: PasskeyUserVerification = .preferred,
        timeout: Duration? = nil
    ) {
        self.relyingPartyID = relyingPartyID
        self.challenge = challenge
        self.origin = origin ?? "https://\(relyingPartyID)"
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.timeout = timeout
    }

    /// Reads `PublicKeyCredentialRequestOptionsJSON`: `challenge` (base64url), `rpId`,
    /// `allowCredentials`, `userVerification` and `timeout` (milliseconds).
    ///
    /// A missing `rpId` defaults to the host of `origin`, as a browser would.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the first missing or malformed member.
    public init(json: JSONValue, origin: String? = nil) throws {
        let reader = WebAuthnJSONReader(json, what: "passkey request options")
        guard let rpID = try reader.optionalString("rpId") ?? origin.flatMap({ URL(string: $0)?.host }) else {
            throw reader.problem("rpId is missing and no origin was given to derive it from")
        }
        self.init(
            relyingPartyID: rpID,
            challenge: try reader.bytes("challenge"),
            origin: origin,
            allowCredentials: try reader.credentialIDs("allowCredentials"),
            userVerification: json["userVerification"]?.stringValue
                .flatMap(PasskeyUserVerification.init(rawValue:)) ?? .preferred,
            timeout: WebAuthnJSONReader.timeout(json["timeout"])
        )
    }

    /// The options as `PublicKeyCredentialRequestOptionsJSON` (binary members base64url), what a page
    /// hands to `navigator.credentials.get` after decoding them (``init(json:origin:)`` reads it back).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "rpId": .string(relyingPartyID),
            "challenge": .string(Base64URL.encode(challenge)),
            "allowCredentials": .array(allowCredentials.map { ["type": "public-key", "id": .string(Base64URL.encode($0))] }),
            "userVerification": .string(userVerification.rawValue),
        ]
        if let timeout { object["timeout"] = .number(WebAuthnJSONReader.milliseconds(timeout)) }
        return .object(object)
    }
}
