import AuthHub
import AuthHubFactors
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// A request stamp (AuthHubTurnkey docs, TurnkeyProtocol: “Stamping”), parsed but not yet verified.
enum TurnkeyStamp: Sendable {
    /// `X-Stamp`: an API or session key's DER signature over SHA-256(body).
    case apiKey(publicKey: String, key: P256.Signing.PublicKey, signature: [UInt8])
    /// `X-Stamp-WebAuthn`: a passkey assertion over ascii(hex(SHA-256(body))).
    case webAuthn(PasskeyAssertion)
}

/// Stamp parsing and verification (AuthHubTurnkey docs, TurnkeyProtocol: “Stamping”), over the exact received body bytes.
extension TurnkeyService {
    static let apiKeyScheme = "SIGNATURE_SCHEME_TK_API_P256"

    /// The stamp header of `request`: none → `401` code 16, both or a malformed one → `400` code 3.
    static func stamp(of request: Request) throws -> TurnkeyStamp {
        let apiHeader = HTTPField.Name("X-Stamp").flatMap { request.headers[$0] }
        let webAuthnHeader = HTTPField.Name("X-Stamp-WebAuthn").flatMap { request.headers[$0] }
        switch (apiHeader, webAuthnHeader) {
        case (nil, nil): throw TurnkeyFailure.notAuthenticated
        case (.some, .some): throw TurnkeyFailure.invalid("X-Stamp", "send exactly one of X-Stamp and X-Stamp-WebAuthn")
        case (.some(let value), nil): return try apiKeyStamp(value)
        case (nil, .some(let value)): return try webAuthnStamp(value)
        }
    }

    /// `X-Stamp`: base64url(JSON `{publicKey, scheme, signature}`).
    static func apiKeyStamp(_ header: String) throws -> TurnkeyStamp {
        let field = "X-Stamp"
        guard let data = Base64URL.decode(header.trimmingCharacters(in: .whitespaces)),
              let json = try? JSONValue.parse(data), let stamp = json.objectValue
        else {
            throw TurnkeyFailure.invalid(field, "the stamp must be base64url-encoded JSON {publicKey, scheme, signature}")
        }
        guard let scheme = stamp["scheme"]?.stringValue, scheme == apiKeyScheme else {
            throw TurnkeyFailure.invalid(field + ".scheme", "the scheme must be \(apiKeyScheme)")
        }
        guard let publicKey = stamp["publicKey"]?.stringValue, let key = TurnkeyCrypto.signingKey(compressedHex: publicKey) else {
            throw TurnkeyFailure.invalid(field + ".publicKey", "must be a compressed P-256 public key in hex (66 characters)")
        }
        guard let signatureHex = stamp["signature"]?.stringValue, !signatureHex.isEmpty,
              let signature = TurnkeyCrypto.bytes(hex: signatureHex)
        else {
            throw TurnkeyFailure.invalid(field + ".signature", "must be a hex-encoded DER ECDSA signature")
        }
        return .apiKey(publicKey: publicKey.lowercased(), key: key, signature: signature)
    }

    /// `X-Stamp-WebAuthn`: plain JSON `{authenticatorData, clientDataJson, credentialId, signature}`,
    /// members base64url.
    static func webAuthnStamp(_ header: String) throws -> TurnkeyStamp {
        let field = "X-Stamp-WebAuthn"
        guard let json = try? JSONValue.parse(Data(header.utf8)), let stamp = json.objectValue else {
            throw TurnkeyFailure.invalid(
                field, "the stamp must be JSON {authenticatorData, clientDataJson, credentialId, signature}"
            )
        }
        func member(_ name: String) throws -> [UInt8] {
            guard let text = stamp[name]?.stringValue, !text.isEmpty, let bytes = Base64URL.decode(text) else {
                throw TurnkeyFailure.invalid("\(field).\(name)", "must be a non-empty base64url string")
            }
            return Array(bytes)
        }
        return .webAuthn(PasskeyAssertion(
            credentialID: try member("credentialId"), clientDataJSON: try member("clientDataJson"),
            authenticatorData: try member("authenticatorData"), signature: try member("signature")
        ))
    }

    /// Whether `origin` may carry passkey ceremonies for `rpId`: `https://<rpId>` or a subdomain
    /// (any port); `http` too when the host is `localhost` or under it.
    static func isAcceptedOrigin(_ origin: String, rpId: String) -> Bool {
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
              url.path.isEmpty || url.path == "/", url.query == nil
        else { return false }
        let id = rpId.lowercased()
        guard !id.isEmpty, host == id || host.hasSuffix("." + id) else { return false }
        let isLocal = host == "localhost" || host.hasSuffix(".localhost")
        return scheme == "https" || (scheme == "http" && isLocal)
    }

    /// The relying party that checks a ceremony whose client data names `clientDataJSON`'s origin.
    static func relyingParty(rpId: String, clientDataJSON: [UInt8]) throws -> WebAuthnRelyingParty {
        guard let clientData = try? CollectedClientData(json: clientDataJSON) else {
            throw AuthError(.webAuthnMalformedResponse, message: "clientDataJson is not valid client data.")
        }
        guard isAcceptedOrigin(clientData.origin, rpId: rpId) else {
            throw AuthError(.webAuthnOriginMismatch, message: "The origin \(clientData.origin) is not accepted for RP ID \(rpId).")
        }
        return WebAuthnRelyingParty(id: rpId, origins: [clientData.origin], acceptsUnverifiedAttestation: true)
    }

    /// Verifies `stamp` over `body` for a request naming `organizationId` and returns who signed:
    /// a user of that organization, of its parent, or (for a parent organization) of one of its
    /// sub-organizations. A passkey's new signature counter is stored.
    func authenticate(_ stamp: TurnkeyStamp, body: Data, organizationId: String) async throws -> TurnkeyDirectory.Owner {
        let now = self.now
        let digest = SHA256.hash(data: body)
        switch stamp {
        case .apiKey(let publicKey, let key, let signatureBytes):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signatureBytes),
                  key.isValidSignature(signature, for: digest)
            else {
                throw TurnkeyFailure.invalidStamp("the X-Stamp signature does not verify over the request body with the stamp's public key")
            }
            let directory = await state.get(TurnkeyDirectory.key)
            guard let found = directory.owner(ofKey: publicKey, from: organizationId) else {
                throw TurnkeyFailure.publicKeyNotFound
            }
            if found.1.isExpired(at: now) { throw TurnkeyFailure.expiredAPIKey }
            return found.0
        case .webAuthn(let assertion):
            let challenge = Array(TurnkeyCrypto.hex(digest).utf8)
            return try await state.update(TurnkeyDirectory.key) { directory -> TurnkeyDirectory.Owner in
                guard let found = directory.owner(ofCredential: assertion.credentialID, from: organizationId) else {
                    throw TurnkeyFailure.publicKeyNotFound
                }
                let (owner, authenticator) = found
                let updated: WebAuthnCredentialRecord
                do {
                    let party = try Self.relyingParty(rpId: directory.config.rpId, clientDataJSON: assertion.clientDataJSON)
                    updated = try party.verifyAssertion(assertion, challenge: challenge, credential: authenticator.credential)
                } catch let error as AuthError {
                    throw TurnkeyFailure.invalidStamp("the X-Stamp-WebAuthn assertion does not verify: \(error.message)")
                } catch {
                    throw TurnkeyFailure.invalidStamp("the X-Stamp-WebAuthn assertion does not verify")
                }
                directory.updateUser(owner) { user in
                    if let index = user.authenticators.firstIndex(where: { $0.id == authenticator.id }) {
                        user.authenticators[index].credential = updated
                    }
                }
                return owner
            }
        }
    }
}
