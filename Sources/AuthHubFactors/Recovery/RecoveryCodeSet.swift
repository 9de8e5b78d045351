import AuthHub

/// The stored recovery codes of one account: hashes of the codes not used yet.
///
/// ``consume(_:)`` accepts each code once: a match removes its hash, so using the same code again
/// fails, and ``remaining`` tells how many are left (prompt the user to generate new ones when it
/// runs low). It is a value: persist it after every successful ``consume(_:)``, with
/// compare-and-swap when two requests could consume codes of the same account at once.
///
/// `Codable` as an array of stored forms (`["sha256$…$…", …]`).
public struct RecoveryCodeSet: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The hashes of the unused codes.
    public private(set) var hashes: [RecoveryCodeHash]

    /// Creates a set from hashes.
    ///
    /// - Parameter hashes: the hashes of the unused codes.
    public init(hashes: [RecoveryCodeHash]) {
        self.hashes = hashes
    }

    /// Creates a set from stored forms (`sha256$<salt>$<hash>`).
    ///
    /// - Parameter storedForms: the stored forms of the unused codes.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` when one is malformed.
    public init(storedForms: [String]) throws {
        self.hashes = try storedForms.map { try RecoveryCodeHash(parsing: $0) }
    }

    /// Generates new codes and the set that stores them.
    ///
    /// - Parameters:
    ///   - count: how many codes; 10 by default.
    ///   - random: the source of the codes and salts.
    /// - Returns: the codes in display form (show them to the user once, then drop them) and the set
    ///   to store.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when `count` is out of
    ///   range or the random source misbehaves.
    public static func generate(count: Int = RecoveryCode.defaultCount, random: any RandomSource = SystemRandom()) throws
        -> (codes: [Secret<String>], set: RecoveryCodeSet)
    {
        let codes = try RecoveryCode.generate(count: count, using: random)
        let hashes = try codes.map { try RecoveryCodeHash(hashing: $0, random: random) }
        return (codes, RecoveryCodeSet(hashes: hashes))
    }

    /// How many codes are left.
    public var remaining: Int { hashes.count }

    /// The stored forms of the unused codes.
    public var storedForms: [String] { hashes.map(\.stored) }

    /// Uses a code: succeeds once per code.
    ///
    /// The presented code is checked against every remaining hash (no early exit), then the matching
    /// hash is removed.
    ///
    /// - Parameter code: what the user typed; case, spaces and hyphens do not matter.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidMFACode`` when the code is wrong or
    ///   was used already (the set is unchanged then).
    public mutating func consume(_ code: Secret<String>) throws {
        var matched: Int?
        for (index, hash) in hashes.enumerated() {
            let equal = hash.matches(code)
            if equal && matched == nil { matched = index }
        }
        guard let matched else {
            throw AuthError(.invalidMFACode, message: "The recovery code is wrong or has already been used.",
                            details: ["remaining": String(remaining)])
        }
        hashes.remove(at: matched)
    }

    /// `RecoveryCodeSet(n remaining)`.
    public var description: String { "RecoveryCodeSet(\(remaining) remaining)" }

    /// Encodes as an array of stored forms.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hashes)
    }

    /// Decodes from an array of stored forms.
    ///
    /// - Throws: a `DecodingError`, or ``AuthError`` when a stored form is malformed.
    public init(from decoder: any Decoder) throws {
        self.hashes = try decoder.singleValueContainer().decode([RecoveryCodeHash].self)
    }
}
