import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// A version a store cannot advance is a `storageFailure`, never a trap or a wrap-around, and a
/// renewal it refused is kept in memory and written back on request.
@Suite struct VersionExhaustionTests {
    @Test func theLargestVersionCannotBeAdvanced() {
        let session = Session(providerID: "p", accessToken: Secret("a"))
        let error = #expect(throws: AuthError.self) {
            _ = try session.storedCopy(for: SessionKey(provider: "p"), currentVersion: .max, expectedVersion: .max)
        }
        #expect(error?.code == .storageFailure)
        #expect(error?.isRetryable == false)
        #expect(error?.details["reason"] == "versionExhausted")
    }

    /// A store whose every write fails as a store at its largest version does.
    actor ExhaustedStore: SessionStore {
        var session: Session?
        init(_ session: Session) { self.session = session }
        func load(_ key: SessionKey) async throws -> Session? { session }
        func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
            throw AuthError.versionExhausted(key: key, version: self.session?.version ?? 0)
        }
        func remove(_ key: SessionKey) async throws { session = nil }
        func keys() async throws -> [SessionKey] { session.map { [$0.key] } ?? [] }
    }

    @Test func aRefusedRenewalIsKeptAndReportedWhenWrittenBack() async throws {
        var old = Session(providerID: "p", accessToken: Secret("old"), refreshToken: Secret("refresh"), expiresAt: Date(timeIntervalSinceNow: -10))
        old.version = .max
        let store = ExhaustedStore(old)
        let manager = SessionManager(key: SessionKey(provider: "p"), provider: StubRefreshProvider(), store: store)
        let renewed = try await manager.session(minTTL: 60)
        #expect(renewed.accessToken.revealed() == "renewed")
        #expect(await manager.hasUnsavedSession)
        let error = await #expect(throws: AuthError.self) { try await manager.storeUnsaved() }
        #expect(error?.code == .storageFailure)
        #expect(error?.message.contains("could not be stored") == true)
        #expect(await manager.hasUnsavedSession, "still kept after a failed write")
    }
}
