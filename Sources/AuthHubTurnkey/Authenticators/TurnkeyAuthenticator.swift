import AuthHub
import Foundation

/// One passkey authenticator of a Turnkey user, as `get_authenticators` lists it
/// (<doc:TurnkeyProtocol>: “Authenticators”): the members AuthHub reads, each checked.
///
/// `authenticatorId` is required (1 to 256 characters); `authenticatorName` (at most 1,024),
/// `credentialId`, `aaguid` and `model` (at most 2,048 each), `transports` (at most 16 strings) and
/// `createdAt` (a ``TurnkeyTimestamp``) may be missing. A member present with the wrong type or out
/// of range refuses the whole reply.
package struct TurnkeyAuthenticator: Decodable, Sendable, Equatable {
    package var authenticatorId: String
    package var authenticatorName: String?
    /// The WebAuthn credential id, as Turnkey writes it (base64url).
    package var credentialId: String?
    package var aaguid: String?
    /// The kind of device, as Turnkey names it.
    package var model: String?
    /// Turnkey's transport names (`AUTHENTICATOR_TRANSPORT_INTERNAL`, …).
    package var transports: [String]
    package var createdAt: Date?

    enum CodingKeys: String, CodingKey { case authenticatorId, authenticatorName, credentialId, aaguid, model, transports, createdAt }

    package init(authenticatorId: String, authenticatorName: String? = nil, credentialId: String? = nil, aaguid: String? = nil,
                 model: String? = nil, transports: [String] = [], createdAt: Date? = nil) {
        self.authenticatorId = authenticatorId
        self.authenticatorName = authenticatorName
        self.credentialId = credentialId
        self.aaguid = aaguid
        self.model = model
        self.transports = transports
        self.createdAt = createdAt
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys, _ limit: Int) throws -> String? {
            guard let value = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard value.utf8.count <= limit else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "longer than \(limit) bytes")
            }
            return value
        }
        guard let id = try text(.authenticatorId, 256), !id.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .authenticatorId, in: c, debugDescription: "missing or empty")
        }
        authenticatorId = id
        authenticatorName = try text(.authenticatorName, 1024)
        credentialId = try text(.credentialId, 2048)
        aaguid = try text(.aaguid, 2048)
        model = try text(.model, 2048)
        let transports = try c.decodeIfPresent([String].self, forKey: .transports) ?? []
        guard transports.count <= 16, transports.allSatisfy({ $0.utf8.count <= 64 }) else {
            throw DecodingError.dataCorruptedError(forKey: .transports, in: c, debugDescription: "more than 16 transports, or one longer than 64 bytes")
        }
        self.transports = transports
        createdAt = try c.decodeIfPresent(TurnkeyTimestamp.self, forKey: .createdAt)?.date
    }

    /// The WebAuthn name of each transport Turnkey names (`AUTHENTICATOR_TRANSPORT_HYBRID` → `hybrid`),
    /// unknown ones dropped.
    package var webAuthnTransports: [String] {
        transports.compactMap(TurnkeyAPI.webAuthnTransportName)
    }
}
