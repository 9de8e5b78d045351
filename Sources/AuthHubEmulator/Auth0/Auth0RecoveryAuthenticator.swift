import AuthHubFactors
import struct AuthHub.Secret
import Foundation

/// The recovery-code authenticator created with the first enrollment.
struct Auth0RecoveryAuthenticator: Sendable {
    var id: String
    var codes: RecoveryCodeSet
    /// SHA-256 digests (``Auth0Tenant/digest(_:)``) of Auth0-style 24-character codes handed out
    /// by the My Account API, upper-cased without separators. Random 120-bit codes need no salt.
    var codeDigests: [String] = []

    /// Spends `code` when it is one of the unused codes (either form).
    /// - Returns: whether the code was accepted.
    mutating func consume(_ code: String) -> Bool {
        let normalized = Self.normalized(code)
        let digest = Auth0Tenant.digest(normalized)
        if let index = codeDigests.firstIndex(of: digest) {
            codeDigests.remove(at: index)
            return true
        }
        return (try? codes.consume(Secret(code))) != nil
    }

    /// Upper-cased, without spaces and hyphens.
    static func normalized(_ code: String) -> String {
        code.uppercased().filter { $0 != " " && $0 != "-" }
    }
}
