import AuthHub
import Crypto
import Foundation

/// Passkey sign-in in two steps, for a browser on a server-rendered page (the web core's login
/// route): the server makes the `stamp_login` body with a fresh session key and hands the browser
/// the WebAuthn challenge over those bytes (<doc:TurnkeyProtocol>: “Passkey stamp”); the browser's
/// assertion becomes the `X-Stamp-WebAuthn` stamp of exactly those bytes, which are sent then.
///
/// The state between the steps (the body and the session key) stays on the server, sealed in the
/// challenge's secret ``PasskeySignInChallenge/state``. Turnkey checks the stamp (RP ID, origin,
/// signature, the passkey's membership of the organization) as for any passkey login. A login whose
/// activity is not complete at once fails: its poll would need another assertion from a page that
/// is gone.
extension TurnkeyProvider: PasskeyChallengeSignInProvider {
    struct BrowserPasskeyState: Codable {
        var organizationId: String
        var expectedOrganizationId: String?
        /// The session key's raw private scalar, hex.
        var sessionKey: String
        /// The `stamp_login` body, base64url.
        var body: String
    }

    /// How long the browser may take to sign (the WebAuthn `timeout` it is given).
    static let browserPasskeyTimeout = Duration.seconds(300)

    public func beginPasskeySignIn(identifier: String?) async throws -> PasskeySignInChallenge {
        var organizationId: String?
        if let email = identifier?.trimmingCharacters(in: .whitespacesAndNewlines), !email.isEmpty {
            try checkEmail(email)
            guard let first = try await api.lookupSubOrganizations(email: email).first else {
                throw AuthError(.userNotFound, message: "No Turnkey account is registered for this email.", provider: id)
            }
            organizationId = first
        }
        let key = P256.Signing.PrivateKey()
        let organization = organizationId ?? configuration.organizationId
        let body = try api.stampLoginBody(organizationId: organization, publicKey: TurnkeyKeys.compressedHex(key.publicKey),
                                          expirationSeconds: configuration.sessionLifetimeSeconds)
        let state = BrowserPasskeyState(organizationId: organization, expectedOrganizationId: organizationId,
                                        sessionKey: TurnkeyHex.encode(key.rawRepresentation), body: Base64URL.encode(body))
        let encoded = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let options = PasskeyAssertionOptions(relyingPartyID: configuration.rpId, challenge: TurnkeyPasskeyStamper.challenge(for: body),
                                              userVerification: .preferred, timeout: Self.browserPasskeyTimeout)
        return PasskeySignInChallenge(options: options, state: Secret(encoded), createdAt: context.clock.now)
    }

    public func finishPasskeySignIn(_ challenge: PasskeySignInChallenge, assertion: PasskeyAssertion) async throws -> Session {
        guard let state = try? JSONDecoder().decode(BrowserPasskeyState.self, from: Data(challenge.state.revealed().utf8)),
              let decoded = Base64URL.decode(state.body), let raw = TurnkeyHex.decode(state.sessionKey),
              let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw AuthError(.invalidRequest, message: "This passkey sign-in was not started by this provider.", provider: id)
        }
        let body = Array(decoded)
        let stamper = RecordedStamp(body: body, stamp: TurnkeyWebAuthnStamp(assertion), provider: id)
        let token = try await api.stampLogin(organizationId: state.organizationId, bodyBytes: body, stamper: stamper)
        return try session(token: token, key: key, publicKey: TurnkeyKeys.compressedHex(key.publicKey),
                           expectedOrganizationId: state.expectedOrganizationId)
    }

    /// The browser's stamp, good for the one body it signed.
    struct RecordedStamp: TurnkeyStamper {
        let body: [UInt8]
        let stamp: TurnkeyWebAuthnStamp
        let provider: String

        func stampHeader(_ bytes: [UInt8]) async throws -> TurnkeyStampHeader {
            guard bytes == body else {
                throw AuthError(.timeout, message: "The Turnkey login did not complete at once, and the browser's passkey signed only its first request.",
                                provider: provider)
            }
            return TurnkeyStampHeader(name: TurnkeyWebAuthnStamp.headerName, value: stamp.headerValue)
        }
    }
}
