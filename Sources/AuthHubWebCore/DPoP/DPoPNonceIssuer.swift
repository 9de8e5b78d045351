import AuthHub
import Crypto
import Foundation

/// Server-provided DPoP nonces (RFC 9449, section 9) without server state: a nonce is the number of
/// the current time window and an HMAC of it under the issuer's key, so every replica given the same
/// key issues and accepts the same nonces. A nonce is accepted in its window and the next one (a
/// client holding one for a whole window still gets through), so its lifetime is one to two
/// ``window``s.
public struct DPoPNonceIssuer: Sendable {
    private let key: SymmetricKey
    /// The length of a nonce window, in seconds (10…3,600).
    public let window: Int
    public let clock: any AuthClock

    /// - Parameters:
    ///   - key: the HMAC key (at least 32 bytes); the same on every replica that must accept the others'
    ///     nonces. Nil makes a random one (this process only).
    ///   - window: seconds per window; clamped to 10…3,600.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a key shorter than 32 bytes.
    public init(key: Secret<[UInt8]>? = nil, window: Int = 300, clock: any AuthClock = SystemClock()) throws {
        if let key {
            guard key.revealed().count >= 32 else {
                throw AuthError(.invalidConfiguration, message: "A DPoP nonce key needs at least 32 bytes.")
            }
            self.key = SymmetricKey(data: key.revealed())
        } else {
            self.key = SymmetricKey(size: .bits256)
        }
        self.window = min(max(window, 10), 3_600)
        self.clock = clock
    }

    /// The nonce of the current window (what a `DPoP-Nonce` header carries).
    public func current() -> String { nonce(forWindow: currentWindow) }

    /// Whether `nonce` is this issuer's nonce of the current or the previous window.
    public func accepts(_ nonce: String) -> Bool {
        guard nonce.utf8.count == 38, let bytes = Base64URL.decode(nonce), bytes.count == 28 else { return false }
        let number = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let now = currentWindow
        guard number == now || (now > 0 && number == now - 1) else { return false }
        return constantTimeEquals(nonce, self.nonce(forWindow: number))
    }

    private var currentWindow: UInt64 {
        let seconds = clock.now.timeIntervalSince1970
        // A clock far outside any real date (an injected one) stays in range of the window count.
        guard seconds.isFinite, seconds > 0, seconds < 1e15 else { return 0 }
        return UInt64(seconds) / UInt64(window)
    }

    private func nonce(forWindow number: UInt64) -> String {
        let counter = (0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * $0)) }
        let mac = HMAC<SHA256>.authenticationCode(for: counter, using: key)
        return Base64URL.encode(counter + Array(mac).prefix(20))
    }
}
