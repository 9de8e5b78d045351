import func AuthHub.constantTimeEquals
import protocol AuthHub.RandomSource
import Crypto
import Foundation
import _CryptoExtras

/// A stored password of any emulated provider's user: PBKDF2-HMAC-SHA256 over the password with a
/// per-user salt. (Storage, not wire format: sharing it keeps the providers' emulations independent
/// readings of their specs.)
///
/// The emulator never keeps a password in clear. The round count is deliberately low
/// (``rounds``) because the emulator holds made-up users for tests and demos, where thousands of
/// sign-ins per test run matter more than resistance to offline guessing.
struct EmulatorPasswordHash: Sendable, Hashable {
    /// PBKDF2 rounds; far below production advice, on purpose (see the type's documentation).
    static let rounds = 4_096

    let salt: [UInt8]
    let digest: [UInt8]

    /// Hashes `password` with a fresh 16-byte salt from `random`.
    /// - Throws: when the key derivation fails.
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
