import AuthHub
import Crypto

/// The HMAC hash function of an HOTP or TOTP generator (RFC 4226, RFC 6238, section 1.2).
///
/// The raw value is the name used in `otpauth://` URIs (`algorithm=SHA256`). SHA-1 is the default
/// of both RFCs and of every authenticator app; SHA-256 and SHA-512 are supported by fewer apps
/// (Google Authenticator ignores the parameter on some platforms), so enroll with SHA-1 unless the
/// authenticator is known.
public enum OTPAlgorithm: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// HMAC-SHA-1, the default. SHA-1's collision weakness does not affect HMAC.
    case sha1 = "SHA1"
    /// HMAC-SHA-256.
    case sha256 = "SHA256"
    /// HMAC-SHA-512.
    case sha512 = "SHA512"

    /// Looks an algorithm up by its URI name, ignoring case (`sha1`, `SHA256`, `Sha512`).
    ///
    /// - Parameter name: the name as it appears in an `otpauth://` URI.
    /// - Returns: the algorithm, or `nil` when the name is not one of SHA1, SHA256, SHA512.
    public init?(name: String) {
        self.init(rawValue: name.uppercased())
    }

    /// The URI name (`SHA1`, `SHA256`, `SHA512`).
    public var description: String { rawValue }

    /// HMAC of `message` under `key` with this algorithm.
    func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        let symmetricKey = SymmetricKey(data: key)
        switch self {
        case .sha1:
            return Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetricKey))
        case .sha256:
            return Array(HMAC<SHA256>.authenticationCode(for: message, using: symmetricKey))
        case .sha512:
            return Array(HMAC<SHA512>.authenticationCode(for: message, using: symmetricKey))
        }
    }
}
