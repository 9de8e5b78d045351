import func AuthHub.constantTimeEquals
import protocol AuthHub.RandomSource
import Crypto
import Foundation
import _CryptoExtras

/// A stored Openfort credential password: PBKDF2-HMAC-SHA256 with a per-user 16-byte salt.
///
/// The Openfort module keeps its own type so the providers' emulations stay independent. The round
/// count is deliberately low: the emulator holds made-up users, where fast sign-ins matter more
/// than resistance to offline guessing. The hash never leaves the emulator.
struct OpenfortPasswordHash: Sendable, Hashable {
    /// PBKDF2 rounds; far below production advice, on purpose.
    static let rounds = 4_096

    let salt: [UInt8]
    let digest: [UInt8]

    /// Hashes `password` with a fresh salt from `random`.
    init(password: String, random: any RandomSource) throws {
        salt = random.bytes(16)
        digest = try Self.derive(password, salt: salt)
    }

    /// Whether `password` is the one this hash was made from (constant-time comparison).
    func matches(_ password: String) -> Bool {
        guard let candidate = try? Self.derive(password, salt: salt) else { return false }
        return constantTimeEquals(candidate, digest)
    }

    private static func derive(_ password: String, salt: [UInt8]) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds
        )
        return key.withUnsafeBytes { Array($0) }
    }
}
