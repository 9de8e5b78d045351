import Foundation

/// The latest `DPoP-Nonce` each server gave (RFC 9449, sections 8 and 9), by origin, so the next
/// proof to that server carries it and needs no extra round trip. One per hub (shared through the
/// ``ProviderContext``); bounded: at most ``capacity`` origins, the oldest forgotten first.
public final class DPoPNonceCache: Sendable {
    /// The most origins kept.
    public let capacity: Int
    private let nonces = Mutex<(values: [String: String], order: [String])>(([:], []))

    public init(capacity: Int = 64) { self.capacity = max(1, capacity) }

    /// The nonce last given by the origin of `url`, if any.
    public func nonce(for url: URL) -> String? {
        let origin = Self.origin(url)
        return nonces.withLock { $0.values[origin] }
    }

    /// Keeps `nonce` for the origin of `url`. A value that is not a valid nonce (RFC 9449: one or
    /// more `%x21 / %x23-5B / %x5D-7E`, here at most 512 bytes) is ignored.
    public func remember(_ nonce: String, for url: URL) {
        guard Self.isValidNonce(nonce) else { return }
        let origin = Self.origin(url)
        nonces.withLock { state in
            if state.values.updateValue(nonce, forKey: origin) == nil {
                state.order.append(origin)
                if state.order.count > capacity { state.values[state.order.removeFirst()] = nil }
            }
        }
    }

    /// RFC 9449's `nonce` syntax (NQCHAR: printable ASCII but `"` and `\`), at most 512 bytes.
    public static func isValidNonce(_ nonce: String) -> Bool {
        !nonce.isEmpty && nonce.utf8.count <= 512 && nonce.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
    }
}
