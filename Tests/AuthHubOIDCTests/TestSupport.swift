import AuthHub
import AuthHubTesting
import Crypto
import Foundation
@testable import AuthHubOIDC

/// Returns 32 bytes of `n` on the n-th call (1, 2, 3, …), or the scripted byte counts.
final class CountingRandom: RandomSource {
    private let calls = Mutex(0)
    private let shortFrom: Int?

    /// - Parameter shortFrom: from this call on (1-based), return no bytes (a failing generator).
    init(shortFrom: Int? = nil) { self.shortFrom = shortFrom }

    func bytes(_ count: Int) -> [UInt8] {
        let n = calls.withLock { c in c += 1; return c }
        if let shortFrom, n >= shortFrom { return [] }
        return [UInt8](repeating: UInt8(n), count: count)
    }

    static func token(_ n: UInt8) -> String { Base64URL.encode([UInt8](repeating: n, count: 32)) }
}

/// The query of a URL as ordered, decoded pairs.
func queryPairs(_ url: URL) -> [(String, String)] {
    FormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
}

func queryDict(_ url: URL) -> [String: String] {
    Dictionary(queryPairs(url), uniquingKeysWith: { _, b in b })
}

/// base64url(SHA-256(ASCII(verifier))), computed here independently of the core helper.
func s256(_ verifier: String) -> String {
    Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

let issuerURL = URL(string: "https://idp.example.com/")!
let authorizeURL = URL(string: "https://idp.example.com/authorize")!
let redirect = "com.example.app://idp.example.com/linux/com.example.app/callback"

func makeAPI(_ transport: StubTransport, clock: any AuthClock = FakeClock()) -> APIClient {
    APIClient(provider: "oidc", baseURL: issuerURL, transport: transport, errorMapper: OAuthErrorMapper(), clock: clock,
              retryPolicy: .none)
}

func authError(_ body: () throws -> Void) -> AuthError? {
    do { try body() } catch let e as AuthError { return e } catch { return nil }
    return nil
}

func asyncAuthError(_ body: () async throws -> Void) async -> AuthError? {
    do { try await body() } catch let e as AuthError { return e } catch { return nil }
    return nil
}
