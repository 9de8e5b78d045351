import AuthHub
import Foundation

/// A fresh directory under the system temporary directory, deleted with ``remove()``.
struct TemporaryDirectory: Sendable {
    let url: URL

    init(_ label: String = "store") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("authhub-tests-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory (not created).
    func child(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: true) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

enum StorageFixtures {
    /// 32 random bytes as base64, a valid store key.
    static func randomKey() -> Secret<String> {
        Secret(Data(SystemRandom().bytes(32)).base64EncodedString())
    }

    /// An expired-or-not session with every token set, under `key`.
    static func session(_ key: SessionKey, access: String = "access-token-AAA", refresh: String = "refresh-token-BBB",
                        expiresAt: Date = Date(timeIntervalSince1970: 1_767_225_600)) -> Session {
        Session(providerID: key.provider, accountKey: key.account, accessToken: Secret(access), idToken: Secret("id-token-CCC"),
                refreshToken: Secret(refresh), expiresAt: expiresAt, scope: "openid profile", userID: "user-1",
                claims: ["email": "user@example.com"], extras: ["org": "org-1"], secretExtras: ["sk": Secret("secret-extra-DDD")])
    }

    /// The permission bits of a file (`st_mode & 0o777`).
    static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }
}
