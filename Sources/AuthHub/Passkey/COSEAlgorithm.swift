/// A COSE algorithm identifier (IANA "COSE Algorithms" registry), as WebAuthn's `pubKeyCredParams`
/// and credential public keys name signature algorithms.
///
/// Open and integer-backed: identifiers AuthHub does not implement survive parsing, so options
/// that offer them can still be read and the unsupported ones skipped.
public struct COSEAlgorithm: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(integerLiteral value: Int) { self.rawValue = value }

    /// ECDSA with P-256 and SHA-256 (`-7`): what passkeys use almost everywhere.
    public static let es256: COSEAlgorithm = -7
    /// EdDSA with Ed25519 (`-8`).
    public static let edDSA: COSEAlgorithm = -8
    /// ECDSA with P-384 and SHA-384 (`-35`).
    public static let es384: COSEAlgorithm = -35
    /// ECDSA with P-521 and SHA-512 (`-36`).
    public static let es512: COSEAlgorithm = -36
    /// RSASSA-PSS with SHA-256 (`-37`).
    public static let ps256: COSEAlgorithm = -37
    /// RSASSA-PKCS1-v1_5 with SHA-256 (`-257`): Windows Hello's algorithm.
    public static let rs256: COSEAlgorithm = -257

    /// The name used in the COSE registry (`ES256`, …), or the number.
    public var description: String {
        switch self {
        case .es256: "ES256"
        case .edDSA: "EdDSA"
        case .es384: "ES384"
        case .es512: "ES512"
        case .ps256: "PS256"
        case .rs256: "RS256"
        default: "COSE(\(rawValue))"
        }
    }
}
