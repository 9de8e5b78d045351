import Crypto
import Foundation

/// A PKCE pair (RFC 7636) with the S256 method: a verifier kept by the client and the challenge
/// sent on the authorization request.
package struct PKCE: Sendable {
    /// The code verifier: 43 characters of base64url from 32 random bytes. Secret until the exchange.
    package let verifier: Secret<String>
    /// `BASE64URL(SHA256(verifier))`.
    package let challenge: String
    /// Always `S256`.
    package let method = "S256"

    /// A fresh pair from `random`.
    package init(random: any RandomSource = SystemRandom()) {
        self.init(verifier: Secret(Base64URL.encode(random.bytes(32))))
    }

    /// The pair for a given verifier.
    package init(verifier: Secret<String>) {
        self.verifier = verifier
        self.challenge = PKCE.challenge(for: verifier)
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    package static func challenge(for verifier: Secret<String>) -> String {
        Base64URL.encode(SHA256.hash(data: Data(verifier.revealed().utf8)))
    }

    /// 32 random bytes as base64url (43 characters): a `state` or `nonce` value.
    package static func randomToken(_ random: any RandomSource = SystemRandom()) -> String {
        Base64URL.encode(random.bytes(32))
    }
}
