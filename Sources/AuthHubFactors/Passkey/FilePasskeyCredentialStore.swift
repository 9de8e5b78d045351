import AuthHub
import Crypto
import Dispatch
import Foundation

/// A ``PasskeyCredentialStore`` in one JSON file, safe to share between processes, optionally
/// sealed with AES-256-GCM.
///
/// - **Layout.** `passkeys.json` in a directory of mode 0700 (created, or tightened); the file has
///   mode 0600. `.passkeys.lock` beside it is the store's write lock.
/// - **Atomic, durable writes.** Every change re-reads the file under an exclusive `flock`, applies
///   itself, writes a temporary file, `fsync`s it and renames it over the old one; readers take no
///   lock and see the old or the new file, never a torn one. Counters incremented by two processes
///   at once therefore never collide.
/// - **Encryption.** With `encryptionKey` (32 random bytes, base64) the credential list is sealed
///   with AES-256-GCM, authenticated with the format name. A store with a key refuses a plain file
///   and a store without one cannot read a sealed file.
/// - **Damage.** A file that cannot be read or decrypted makes every call throw
///   ``AuthErrorCode/storageFailure`` naming the file and the reason; the file is never overwritten
///   by a write that could not read it first, so no credential is lost silently.
public final class FilePasskeyCredentialStore: PasskeyCredentialStore {
    /// The file holding the credentials.
    public let fileURL: URL

    private let directoryPath: String
    private let path: String
    private let lockPath: String
    private let key: SymmetricKey?
    private let queue = DispatchQueue(label: "authhub.passkey-store", qos: .userInitiated)
    private static let format = "authhub-passkeys"
    /// The largest credential file read: 8 MiB (thousands of credentials). The file is read without
    /// following a symbolic link and must be a regular file, so it can never hang or exhaust memory.
    public static let maxFileBytes = 8 << 20
    private static let version = 1

    /// Opens (creating the directory when missing) a store in `directory`.
    /// - Parameters:
    ///   - directory: the folder of `passkeys.json`; created with mode 0700, or tightened to 0700.
    ///   - encryptionKey: 32 random bytes as base64 (base64url accepted) to seal the file with
    ///     AES-256-GCM; nil stores plain JSON (still mode 0600).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a key that is not 32 bytes of base64;
    ///   ``AuthErrorCode/storageFailure`` when the directory cannot be created or secured.
    public init(directory: URL, encryptionKey: Secret<String>? = nil) throws {
        if let encryptionKey {
            guard let raw = Base64URL.decode(encryptionKey.revealed().trimmingCharacters(in: .whitespacesAndNewlines)),
                  raw.count == 32
            else {
                throw AuthError(.invalidConfiguration,
                                message: "The passkey store encryption key must be 32 random bytes in base64.")
            }
            key = SymmetricKey(data: raw)
        } else {
            key = nil
        }
        let standardized = directory.standardizedFileURL
        directoryPath = standardized.path
        fileURL = standardized.appendingPathComponent("passkeys.json")
        path = fileURL.path
        lockPath = standardized.appendingPathComponent(".passkeys.lock").path
        try POSIXFile.ensurePrivateDirectory(directoryPath)
    }

    public func save(_ credential: PasskeyCredential) async throws {
        try await modify { list in
            if let index = list.firstIndex(where: { $0.id == credential.id }) {
                list[index] = credential
            } else {
                list.append(credential)
            }
        }
    }

    public func credential(id: [UInt8]) async throws -> PasskeyCredential? {
        try await read().first { $0.id == id }
    }

    public func credentials(relyingPartyID: String) async throws -> [PasskeyCredential] {
        try await read().filter { $0.relyingPartyID == relyingPartyID }
    }

    public func nextSignCount(for id: [UInt8]) async throws -> UInt32 {
        try await modify { list in
            guard let index = list.firstIndex(where: { $0.id == id }) else { throw AuthError.passkeyNotStored(id) }
            list[index].signCount &+= 1
            return list[index].signCount
        }
    }

    public func remove(id: [UInt8]) async throws {
        try await modify { list in list.removeAll { $0.id == id } }
    }

    public func all() async throws -> [PasskeyCredential] {
        try await read()
    }

    // MARK: - File access

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private func read() async throws -> [PasskeyCredential] {
        try await onQueue { [self] in try decode(POSIXFile.contents(of: path, maxBytes: Self.maxFileBytes)) }
    }

    private func modify<T: Sendable>(_ change: @escaping @Sendable (inout [PasskeyCredential]) throws -> T) async throws -> T {
        try await FileLock.withLock(path: lockPath) {
            try await onQueue { [self] in
                var list = try decode(POSIXFile.contents(of: path, maxBytes: Self.maxFileBytes))
                let result = try change(&list)
                // One temporary name, written only under the exclusive lock: a file a killed writer left
                // there (it holds private keys) is overwritten by the next change, never left to pile up.
                let temp = directoryPath + "/.passkeys.pending"
                try POSIXFile.writeAtomically(try encode(list), to: path, tempPath: temp, directory: directoryPath)
                return result
            }
        }
    }

    private struct Plain: Codable {
        var format: String
        var version: Int
        var credentials: [PasskeyCredential]?
        var sealed: String?
    }

    private func damaged(_ reason: String) -> AuthError {
        AuthError(.storageFailure, message: "The passkey store \(path) cannot be read: \(reason).")
    }

    private func decode(_ data: Data?) throws -> [PasskeyCredential] {
        guard let data else { return [] }
        guard let file = try? JSONDecoder().decode(Plain.self, from: data) else {
            throw damaged("it is not an AuthHub passkey file")
        }
        guard file.format == Self.format else { throw damaged("it is not an AuthHub passkey file") }
        guard file.version == Self.version else { throw damaged("format version \(file.version) is not supported") }
        switch (key, file.sealed, file.credentials) {
        case (let key?, let sealed?, nil):
            guard let combined = Data(base64Encoded: sealed) else { throw damaged("the sealed data is not base64") }
            let plain: Data
            do {
                plain = try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key,
                                         authenticating: Data(Self.format.utf8))
            } catch {
                throw damaged("it was sealed with another key, or it was altered")
            }
            do { return try JSONDecoder().decode([PasskeyCredential].self, from: plain) } catch {
                throw damaged("the sealed credential list is malformed")
            }
        case (nil, nil, let credentials?):
            return credentials
        case (nil, _?, _):
            throw damaged("it is encrypted and no encryption key is configured")
        default:
            throw damaged("it is not encrypted but the store requires encryption")
        }
    }

    private func encode(_ list: [PasskeyCredential]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let file: Plain
        if let key {
            let sealed = try AES.GCM.seal(try encoder.encode(list), using: key, authenticating: Data(Self.format.utf8))
            guard let combined = sealed.combined else { throw damaged("sealing failed") }
            file = Plain(format: Self.format, version: Self.version, credentials: nil, sealed: combined.base64EncodedString())
        } else {
            file = Plain(format: Self.format, version: Self.version, credentials: list, sealed: nil)
        }
        return try encoder.encode(file)
    }
}
