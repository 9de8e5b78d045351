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
///
/// `package` so that other stores of this package (AuthHubPostgres) seal rows exactly as files are
/// sealed: one format, one cipher, one reader of hostile bytes.
package struct SessionFileFormat: Sendable {
    /// The `format` value of every session file.
    static let formatName = "authhub.session"
    /// The envelope version this build writes and reads.
    static let currentVersion = 1
    /// The `cipher` value of encrypted files.
    static let cipherName = "AES-256-GCM"

    /// The key files are sealed with; nil for plain files.
    private let key: SymmetricKey?

    /// Whether files are encrypted.
    package var isEncrypted: Bool { key != nil }

    /// What a decoding failure names: a session file (`session file /path`) or, for a store that keeps
    /// the same envelopes elsewhere, its own description of the entry (a table row).
    package struct Location: Sendable {
        /// Completes "Cannot read …", e.g. `session file /var/lib/authhub/session.auth0.default.json`.
        package var description: String
        /// Structured details put in the error (`path` for a file).
        package var details: [String: String]

        package init(description: String, details: [String: String]) {
            self.description = description
            self.details = details
        }

        /// A session file at `path`.
        static func file(_ path: String) -> Location { Location(description: "session file \(path)", details: ["path": path]) }
    }

    /// Creates the format.
    /// - Parameter encryptionKey: 32 bytes as base64 or base64url (padding optional); nil for plain files.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the key is not base64 or not 32 bytes;
    ///   the message never contains the key.
    package init(encryptionKey: Secret<String>?) throws {
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

    /// The file contents for `session` stored under `sessionKey` in the file `name`. Written with
    /// ``JSONValue/serialized()`` (the bytes `JSONEncoder` with sorted keys writes, without its
    /// per-field containers: BENCHMARKS.md, `filestore.save+load`).
    /// - Throws: ``AuthErrorCode/storageFailure`` for a version above 2^53, which a JSON number
    ///   cannot hold exactly (so it could not be read back as written), or a non-finite number.
    package func encode(_ session: Session, for sessionKey: SessionKey, name: SessionFileName) throws -> Data {
        // Never write what `decode` would refuse: a date outside 1970–9999 would make the file unreadable.
        for date in [session.expiresAt, session.issuedAt].compactMap({ $0 }) where !SessionTimeLimits.isValidDate(date.timeIntervalSince1970) {
            throw AuthError(.storageFailure, message: "Cannot store the session for \(sessionKey): a date lies outside the years 1970–9999.")
        }
        do {
            guard let sessionTree = StoredSessionWriter.tree(session) else {
                throw AuthError(.storageFailure,
                                message: "Cannot store the session for \(sessionKey): version \(session.version) is beyond what a JSON number holds exactly (2^53).")
            }
            var envelope: [String: JSONValue] = [
                "format": .string(Self.formatName),
                "version": .number(Double(Self.currentVersion)),
                "key": .object(["provider": .string(sessionKey.provider), "account": .string(sessionKey.account)]),
            ]
            if let key {
                let (cipher, sealed) = try seal(try sessionTree.serialized(), key: key, for: sessionKey, name: name)
                envelope["cipher"] = .string(cipher)
                envelope["sealed"] = .string(sealed)
            } else {
                envelope["session"] = sessionTree
            }
            return try JSONValue.object(envelope).serialized()
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.storageFailure, message: "Cannot encode the session for \(sessionKey).", underlying: error)
        }
    }

    /// The `cipher` name and the base64 sealed box of `plaintext`.
    private func seal(_ plaintext: Data, key: SymmetricKey, for sessionKey: SessionKey, name: SessionFileName) throws -> (String, String) {
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: name.authenticatedData)
        guard let combined = box.combined else {
            throw AuthError(.storageFailure, message: "Cannot seal the session for \(sessionKey).")
        }
        return (Self.cipherName, combined.base64EncodedString())
    }

    // MARK: Decoding
    //
    // A file is parsed once, with `JSONValue.parse` (the one-pass reader), and the envelope and the
    // session are read from that tree; `JSONDecoder` would parse twice (a lenient envelope pass for
    // precise messages, then the session) and throw an error for every claim it probes
    // (BENCHMARKS.md, `filestore.save+load`). The checks and messages are those of `Session`'s
    // `Decodable` conformance with seconds-since-1970 dates, which wrote these files first.

    /// Decodes the contents of the session file at `path` (named `name`, expected to hold `sessionKey`).
    /// - Throws: ``AuthErrorCode/storageFailure`` naming `path` and what is wrong.
    func decode(_ data: Data, path: String, name: SessionFileName, expecting sessionKey: SessionKey) throws -> Session {
        try decode(data, location: .file(path), name: name, expecting: sessionKey)
    }

    /// Decodes an envelope kept at `location` (named `name`, expected to hold `sessionKey`).
    /// - Throws: ``AuthErrorCode/storageFailure`` naming `location` and what is wrong.
    package func decode(_ data: Data, location: Location, name: SessionFileName, expecting sessionKey: SessionKey) throws -> Session {
        let session = try read(data, location: location, name: name, expecting: sessionKey) { try StoredSessionReader.session(from: $0, at: $1) }
        // The envelope's key is checked in `read`; the session inside must name the same key, or a file
        // copied (or planted) under another key's name would be shown and used as that key's session.
        guard session.providerID == sessionKey.provider, session.accountKey == sessionKey.account else {
            throw AuthError(.storageFailure,
                            message: "Cannot read \(location.description): the session inside belongs to another key.",
                            details: location.details)
        }
        return session
    }

    /// The stored session's `version` only — what a save's compare-and-swap needs — with every
    /// check of ``decode(_:path:name:expecting:)`` on the envelope (format, version, key, cipher,
    /// decryption) but without building the session's claims and extras.
    /// - Throws: ``AuthErrorCode/storageFailure`` naming `path` and what is wrong.
    func storedVersion(_ data: Data, path: String, name: SessionFileName, expecting sessionKey: SessionKey) throws -> UInt64 {
        try read(data, location: .file(path), name: name, expecting: sessionKey) { try StoredSessionReader.version(from: $0, at: $1) }
    }

    /// Checks the envelope of `data` and hands the session's JSON (decrypted when sealed) to `payload`,
    /// with the coding path it sits at (`session` in a plain envelope, the root of a sealed payload).
    private func read<Payload>(_ data: Data, location: Location, name: SessionFileName, expecting sessionKey: SessionKey,
                               _ payload: (JSONValue, [String]) throws -> Payload) throws -> Payload {
        func failure(_ reason: String) -> AuthError {
            AuthError(.storageFailure, message: "Cannot read \(location.description): \(reason).", details: location.details)
        }
        if data.isEmpty { throw failure("the file is empty (truncated write or corruption)") }
        let root: JSONValue
        do {
            root = try JSONValue.parse(data)
        } catch {
            throw failure("not valid JSON (corrupted or truncated)")
        }
        guard case .object(let envelope) = root else {
            throw failure("not an AuthHub session file (the JSON is not an object)")
        }
        guard envelope["format"]?.stringValue == Self.formatName else {
            throw failure("not an AuthHub session file (no \"format\":\"\(Self.formatName)\")")
        }
        guard let version = envelope["version"]?.intValue else { throw failure("the envelope has no format version") }
        guard version == Self.currentVersion else {
            throw failure("unsupported format version \(version) (this build reads version \(Self.currentVersion))")
        }
        if let stored = Self.sessionKey(in: envelope), stored != sessionKey {
            throw failure("the file holds the session of another key")
        }

        if let cipher = envelope["cipher"]?.stringValue {
            guard cipher == Self.cipherName else { throw failure("unknown cipher (expected \(Self.cipherName))") }
            guard let key else { throw failure("the file is encrypted but the store has no encryption key") }
            guard let sealedText = envelope["sealed"]?.stringValue, let sealed = Data(base64Encoded: sealedText) else {
                throw failure("the sealed payload is missing or not base64 (corrupted file)")
            }
            let sessionJSON: Data
            do {
                let box = try AES.GCM.SealedBox(combined: sealed)
                sessionJSON = try AES.GCM.open(box, using: key, authenticating: name.authenticatedData)
            } catch {
                throw failure("cannot decrypt: wrong key or tampered file")
            }
            do {
                return try payload(try JSONValue.parse(sessionJSON), [])
            } catch let error as StoredSessionReader.Failure {
                throw failure("the decrypted session is malformed (\(error))")
            } catch {
                throw failure("the decrypted session is malformed (not valid JSON)")
            }
        }
        guard key == nil else { throw failure("the file is not encrypted but the store requires encryption") }
        guard let session = envelope["session"], session != .null else { throw failure("the envelope has no session") }
        do {
            return try payload(session, ["session"])
        } catch let error as StoredSessionReader.Failure {
            throw failure("the session is malformed (\(error))")
        }
    }

    /// The envelope's plaintext `key`, when it is an object with string `provider` and `account`.
    private static func sessionKey(in envelope: [String: JSONValue]) -> SessionKey? {
        guard let key = envelope["key"]?.objectValue, let provider = key["provider"]?.stringValue,
              let account = key["account"]?.stringValue else { return nil }
        return SessionKey(provider: provider, account: account)
    }

    /// The plaintext session key recorded in a file's envelope, if the file is readable that far.
    static func storedKey(in data: Data) -> SessionKey? {
        guard let envelope = (try? JSONValue.parse(data))?.objectValue, envelope["format"]?.stringValue == formatName else {
            return nil
        }
        return sessionKey(in: envelope)
    }

    // MARK: Helpers

    /// Decodes base64 or base64url, with or without padding.
    static func decodeBase64(_ text: String) -> Data? {
        Base64URL.decode(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
