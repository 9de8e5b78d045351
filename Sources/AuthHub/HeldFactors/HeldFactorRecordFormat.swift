import Crypto
import Foundation

/// How a ``HeldFactorRecord`` is written by the built-in stores (a file, a PostgreSQL row): a JSON
/// envelope `{"format": "authhub.held-factors", "version": 1, "owner": <reference>, …}` holding the
/// record as JSON text (`record`) or, with an encryption key, sealed with AES-256-GCM (`cipher`,
/// `sealed`: base64 of nonce, ciphertext and tag) with the entry's name as authenticated data, so a
/// record copied under another owner does not open. Reading checks everything before trusting it:
/// the format, the owner (outside and inside the seal), the seal, the sizes, every date and version.
package struct HeldFactorRecordFormat: Sendable {
    static let formatName = "authhub.held-factors"
    static let formatVersion = 1
    static let cipherName = "AES-256-GCM"
    /// A record is a few factors; anything larger is not one.
    package static let maximumBytes = 256 * 1024

    private let key: SymmetricKey?

    /// - Parameter encryptionKey: 32 bytes as base64 or base64url; nil writes plain JSON.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a key that is not 32 bytes of base64.
    package init(encryptionKey: Secret<String>?) throws {
        guard let encryptionKey else {
            key = nil
            return
        }
        guard let bytes = Base64URL.decode(encryptionKey.revealed().trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw AuthError(.invalidConfiguration, message: "The held-factor store's encryption key must be 32 bytes encoded as base64.")
        }
        key = SymmetricKey(data: bytes)
    }

    package var isEncrypted: Bool { key != nil }

    private static func coders() -> (JSONEncoder, JSONDecoder) {
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        decoder.dateDecodingStrategy = .secondsSince1970
        return (encoder, decoder)
    }

    package func encode(_ record: HeldFactorRecord, name: String) throws -> Data {
        for factor in record.factors {
            for date in [factor.createdAt, factor.lastUsedAt].compactMap({ $0 }) where !SessionTimeLimits.isValidDate(date.timeIntervalSince1970) {
                throw AuthError(.storageFailure, message: "Cannot store the factors of \(record.owner): a date lies outside the years 1970–9999.")
            }
        }
        let body = try Self.coders().0.encode(record)
        var envelope: [String: JSONValue] = ["format": .string(Self.formatName), "version": .number(Double(Self.formatVersion)),
                                             "owner": .string(record.owner.reference)]
        if let key {
            guard let combined = try AES.GCM.seal(body, using: key, authenticating: Data(name.utf8)).combined else {
                throw AuthError(.storageFailure, message: "Cannot seal the factors of \(record.owner).")
            }
            envelope["cipher"] = .string(Self.cipherName)
            envelope["sealed"] = .string(combined.base64EncodedString())
        } else {
            envelope["record"] = .string(String(decoding: body, as: UTF8.self))
        }
        return try JSONValue.object(envelope).serialized()
    }

    package func decode(_ data: Data, name: String, owner: HeldFactorOwner, location: String) throws -> HeldFactorRecord {
        func failure(_ reason: String) -> AuthError {
            AuthError(.storageFailure, message: "Cannot read the held factors in \(location): \(reason).", details: ["location": location])
        }
        guard case .object(let envelope)? = try? JSONValue.parse(data) else { throw failure("not a JSON object") }
        guard envelope["format"] == .string(Self.formatName) else { throw failure("not a held-factor record") }
        guard envelope["version"] == .number(Double(Self.formatVersion)) else { throw failure("an unknown format version") }
        guard envelope["owner"] == .string(owner.reference) else { throw failure("it belongs to another owner") }
        let body: Data
        switch (envelope["sealed"], envelope["record"]) {
        case (.string(let sealed)?, nil):
            guard let key else { throw failure("it is sealed and this store has no encryption key") }
            guard envelope["cipher"] == .string(Self.cipherName), let combined = Data(base64Encoded: sealed),
                  let box = try? AES.GCM.SealedBox(combined: combined),
                  let opened = try? AES.GCM.open(box, using: key, authenticating: Data(name.utf8)) else {
                throw failure("it does not open with this store's key")
            }
            body = opened
        case (nil, .string(let plain)?):
            guard key == nil else { throw failure("it is not sealed and this store seals every record") }
            body = Data(plain.utf8)
        default:
            throw failure("it has neither a record nor a sealed one")
        }
        guard let record = try? Self.coders().1.decode(HeldFactorRecord.self, from: body) else { throw failure("the record is malformed") }
        guard record.owner == owner else { throw failure("it belongs to another owner") }
        guard record.factors.count <= HeldFactorRecord.maximumFactors, record.version <= 1 << 53,
              record.factors.allSatisfy({ factor in
                  [factor.createdAt, factor.lastUsedAt].compactMap({ $0 }).allSatisfy { SessionTimeLimits.isValidDate($0.timeIntervalSince1970) }
              }) else {
            throw failure("a number in it is out of range")
        }
        return record
    }
}
