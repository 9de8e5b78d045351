import AuthHub
import Foundation

/// A header that authenticates one Turnkey request body: `X-Stamp` (API or session key) or
/// `X-Stamp-WebAuthn` (passkey).
///
/// A stamp is valid only for the exact bytes it was made over; it is redacted from logs by the core
/// ``Redactor`` (its name contains "stamp").
public struct TurnkeyStampHeader: Sendable, Hashable {
    /// The header name.
    public var name: String
    /// The header value.
    public var value: String

    /// Creates a header.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Something that stamps Turnkey request bodies (<doc:TurnkeyProtocol>: “Stamping”): ``TurnkeyAPIKeyStamper``
/// (`X-Stamp`) and ``TurnkeyPasskeyStamper`` (`X-Stamp-WebAuthn`).
public protocol TurnkeyStamper: Sendable {
    /// The stamp header for these exact body bytes.
    /// - Throws: an ``AuthError`` when signing fails (no passkey, user cancelled, …).
    func stampHeader(_ body: [UInt8]) async throws -> TurnkeyStampHeader
}

extension TurnkeyPasskeyStamper: TurnkeyStamper {
    /// The `X-Stamp-WebAuthn` header for `body`: a passkey assertion over it (see ``stamp(_:)``).
    public func stampHeader(_ body: [UInt8]) async throws -> TurnkeyStampHeader {
        TurnkeyStampHeader(name: TurnkeyWebAuthnStamp.headerName, value: try await stamp(body).headerValue)
    }
}
