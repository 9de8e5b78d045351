import Foundation
import Logging

// TEMPORARY: replaced by the real implementation (helper A). Keeps the package compiling.
public actor FileSessionStore: SessionStore {
    public init(directory: URL, encryptionKey: Secret<String>? = nil, logger: Logger = Logger(label: "authhub.store")) throws {
        throw AuthError(.unsupported, message: "FileSessionStore not yet implemented")
    }
    public func load(_ key: SessionKey) async throws -> Session? { nil }
    public func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session { session }
    public func remove(_ key: SessionKey) async throws {}
    public func keys() async throws -> [SessionKey] { [] }
}
