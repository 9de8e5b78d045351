import Crypto
import Foundation

/// The on-disk format of one ``FileSessionStore`` file: a small JSON envelope around the session.
///
/// Plain:
/// ```json
/// {"format":"authhub.session","version":1,"key":{"provider":"auth0","account":"default"},"session":{…}}
/// ```
/// Encrypted (AES-256-GCM; `sealed` is base64 of nonce ‖ ciphertext ‖ tag, the ciphertext being the
/// session's JSON, and the file's name is authenticated data, so a sealed file renamed to another
/// key fails to open):
/// ```json
/// {"format":"authhub.session","version":1,"key":{…},"cipher":"AES-256-GCM","sealed":"…"}
/// ```
/// `key` is the session key in plaintext (provider id and account are not secrets); ``keys()`` of the
/// store reads it for files whose name is a hash. Dates are seconds since 1970 as JSON numbers, so
/// they keep sub-millisecond precision.
///
/// Decoding is strict and never silent: a file that is empty, truncated, not JSON, of another
/// format or version, sealed with another key or tampered with, or plain where the store requires
/// encryption, throws ``AuthErrorCode/storageFailure`` whose message names the file and the reason
/// and never includes the file's contents.
struct SessionFileFormat: Sendable {
    /// The `format` value of every session file.
    static let formatName = "authhub.session"
    /// The envelope version this build writes and reads.
    static let currentVersion = 1
    /// The `cipher` value of encrypted files.
    static let cipherName = "AES-256-GCM"

    private struct Envelope: Codable {
        var format: String?
        var version: Int?
        var key: SessionKey?
        var session: Session?
        var cipher: String?
        var sealed: String?
    }

    /// A minimal view used to classify a file before decoding the session.
    private struct Header: Decodable {
        var format: String?
        var version: Int?
        var key: SessionKey?
        var cipher: String?
        var sealed: String?
        var hasSession: Bool

        enum CodingKeys: String, CodingKey { case format, version, key, cipher, sealed, session }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            format = try? c.decodeIfPresent(String.self, forKey: .format)
            version = try? c.decodeIfPresent(Int.self, forKey: .version)
            key = try? c.decodeIfPresent(SessionKey.self, forKey: .key)
            cipher = try? c.decodeIfPresent(String.self, forKey: .cipher)
            sealed = try? c.decodeIfPresent(String.self, forKey: .sealed)
            hasSession = c.contains(.session)
        }
    }

    /// The key files are sealed with; nil for plain files.
    private let key: SymmetricKey?

    /// Whether files are encrypted.
    var isEncrypted: Bool { key != nil }

    /// Creates the format.
    /// - Parameter encryptionKey: 32 bytes as base64 or base64url (padding optional); nil for plain files.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the key is not base64 or not 32 bytes;
    ///   the message never contains the key.
    init(encryptionKey: Secret<String>?) throws {
        guard let encryptionKey else {
            key = nil
            return
        }
        guard let bytes = Self.decodeBase64(encryptionKey.revealed()) else {
            throw AuthError(.invalidConfiguration,
                            message: "The session store encryption key is not valid base64; expected 32 random bytes encoded as base64.")
        }
        guard bytes.count == 32 else {
            throw AuthError(.invalidConfiguration,
                            message: "The session store encryption key must be 32 bytes (AES-256) encoded as base64; it decodes to \(bytes.count) bytes.")
        }
        key = SymmetricKey(data: bytes)
    }

    // MARK: Encoding

    /// The file contents for `session` stored under `sessionKey` in the file `name`.
    func encode(_ session: Session, for sessionKey: SessionKey, name: SessionFileName) throws -> Data {
        var envelope = Envelope(format: Self.formatName, version: Self.currentVersion, key: sessionKey)
        do {
            if let key {
                let plaintext = try Self.encoder.encode(session)
                let box = try AES.GCM.seal(plaintext, using: key, authenticating: name.authenticatedData)
                guard let combined = box.combined else {
                    throw AuthError(.storageFailure, message: "Cannot seal the session for \(sessionKey).")
                }
                envelope.cipher = Self.cipherName
                envelope.sealed = combined.base64EncodedString()
            } else {
                envelope.session = session
            }
            return try Self.encoder.encode(envelope)
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.storageFailure, message: "Cannot encode the session for \(sessionKey).", underlying: error)
        }
    }

    // MARK: Decoding

    /// Decodes the contents of the session file at `path` (named `name`, expected to hold `sessionKey`).
    /// - Throws: ``AuthErrorCode/storageFailure`` naming `path` and what is wrong.
    func decode(_ data: Data, path: String, name: SessionFileName, expecting sessionKey: SessionKey) throws -> Session {
        try decode(data, as: Session.self, path: path, name: name, expecting: sessionKey)
    }

    /// The stored session's `version` only — what a save's compare-and-swap needs — with every
    /// check of ``decode(_:path:name:expecting:)`` on the envelope (format, version, key, cipher,
    /// decryption) but without building the session's claims and extras (BENCHMARKS.md,
    /// `filestore.save+load`).
    /// - Throws: ``AuthErrorCode/storageFailure`` naming `path` and what is wrong.
    func storedVersion(_ data: Data, path: String, name: SessionFileName, expecting sessionKey: SessionKey) throws -> UInt64 {
        try decode(data, as: StoredVersion.self, path: path, name: name, expecting: sessionKey).version
    }

    /// A session's `version` field alone.
    private struct StoredVersion: Decodable {
        var version: UInt64
    }

    /// A plain envelope's `session`, read as `Payload`.
    private struct PlainEnvelope<Payload: Decodable>: Decodable {
        var session: Payload?
    }

    private func decode<Payload: Decodable>(_ data: Data, as payload: Payload.Type, path: String, name: SessionFileName,
                                            expecting sessionKey: SessionKey) throws -> Payload {
        func failure(_ reason: String, underlying: (any Error)? = nil) -> AuthError {
            AuthError(.storageFailure, message: "Cannot read session file \(path): \(reason).",
                      underlying: underlying, details: ["path": path])
        }
        if data.isEmpty { throw failure("the file is empty (truncated write or corruption)") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data)
        } catch DecodingError.typeMismatch {
            throw failure("not an AuthHub session file (the JSON is not an object)")
        } catch {
            throw failure("not valid JSON (corrupted or truncated)")
        }
        guard header.format == Self.formatName else {
            throw failure("not an AuthHub session file (no \"format\":\"\(Self.formatName)\")")
        }
        guard let version = header.version else { throw failure("the envelope has no format version") }
        guard version == Self.currentVersion else {
            throw failure("unsupported format version \(version) (this build reads version \(Self.currentVersion))")
        }
        if let stored = header.key, stored != sessionKey {
            throw failure("the file holds the session of another key")
        }

        let sessionJSON: Data
        if let cipher = header.cipher {
            guard cipher == Self.cipherName else { throw failure("unknown cipher (expected \(Self.cipherName))") }
            guard let key else { throw failure("the file is encrypted but the store has no encryption key") }
            guard let sealedText = header.sealed, let sealed = Data(base64Encoded: sealedText) else {
                throw failure("the sealed payload is missing or not base64 (corrupted file)")
            }
            do {
                let box = try AES.GCM.SealedBox(combined: sealed)
                sessionJSON = try AES.GCM.open(box, using: key, authenticating: name.authenticatedData)
            } catch {
                throw failure("cannot decrypt: wrong key or tampered file")
            }
        } else {
            guard key == nil else { throw failure("the file is not encrypted but the store requires encryption") }
            guard header.hasSession else { throw failure("the envelope has no session") }
            let envelope: PlainEnvelope<Payload>
            do {
                envelope = try Self.decoder.decode(PlainEnvelope<Payload>.self, from: data)
            } catch {
                throw failure("the session is malformed (\(Self.describe(error)))")
            }
            guard let session = envelope.session else { throw failure("the envelope has no session") }
            return session
        }
        do {
            return try Self.decoder.decode(Payload.self, from: sessionJSON)
        } catch {
            throw failure("the decrypted session is malformed (\(Self.describe(error)))")
        }
    }

    /// The plaintext session key recorded in a file's envelope, if the file is readable that far.
    static func storedKey(in data: Data) -> SessionKey? {
        guard let header = try? JSONDecoder().decode(Header.self, from: data), header.format == formatName else {
            return nil
        }
        return header.key
    }

    // MARK: Helpers

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// Where a decoding error happened (the field path only: never a value from the file).
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable" }
        let path: [any CodingKey]
        let what: String
        switch error {
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
            what = "missing field"
        case .typeMismatch(_, let context):
            path = context.codingPath
            what = "wrong type"
        case .valueNotFound(_, let context):
            path = context.codingPath
            what = "missing value"
        case .dataCorrupted(let context):
            path = context.codingPath
            what = "invalid value"
        @unknown default:
            return "unreadable"
        }
        let rendered = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return rendered.isEmpty ? what : "\(what) at \(rendered)"
    }

    /// Decodes base64 or base64url, with or without padding.
    static func decodeBase64(_ text: String) -> Data? {
        Base64URL.decode(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
