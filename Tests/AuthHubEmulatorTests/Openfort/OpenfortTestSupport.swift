import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

/// Talks to the emulator's Openfort routes over real HTTP, building every request from
/// spec/openfort.md by hand (no client module). Redirects are not followed.
struct OpenfortWire {
    let emulator: RunningEmulator
    let transport = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)
    static let key = "pk_test_00000000-0000-0000-0000-000000000000"
    static let password = "correct horse battery"
    static let auth = "/openfort/iam/v2/auth/"

    struct Reply {
        let status: Int
        let body: Data
        let headerFields: HTTPFields
        var json: JSONValue? { try? JSONValue.parse(body) }
        var code: String? { json?["code"]?.stringValue }
        subscript(name: String) -> JSONValue? { json?[name] }
        func string(_ name: String) -> String? { json?[name]?.stringValue }
        var location: String? { headerFields[.location] }
        /// The query items of the `Location` header.
        var locationQuery: [String: String] {
            var items: [String: String] = [:]
            for item in URLComponents(string: location ?? "")?.queryItems ?? [] { items[item.name] = item.value ?? "" }
            return items
        }
    }

    static func start(_ clock: FakeClock = FakeClock()) async throws -> OpenfortWire {
        OpenfortWire(emulator: try await Emulator.start(EmulatorConfiguration(clock: clock)))
    }

    func send(_ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, key: String? = OpenfortWire.key, bearer: String? = nil) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let key { headers["x-project-key"] = key }
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        var data: Data?
        if let json {
            headers["Content-Type"] = "application/json"
            data = try JSONEncoder().encode(json)
        }
        let response = try await transport.send(method, emulator.url(path), headerFields: headers, body: data)
        return Reply(status: response.status, body: response.body, headerFields: response.headerFields)
    }

    /// `POST /openfort/iam/v2/auth/<path>`.
    func post(_ path: String, _ json: JSONValue = [:], key: String? = OpenfortWire.key, bearer: String? = nil) async throws -> Reply {
        try await send(.post, Self.auth + path, json: json, key: key, bearer: bearer)
    }

    /// `GET /openfort/iam/v2/auth/<path>`.
    func get(_ path: String, key: String? = OpenfortWire.key, bearer: String? = nil) async throws -> Reply {
        try await send(.get, Self.auth + path, key: key, bearer: bearer)
    }

    func signUp(_ email: String, password: String = OpenfortWire.password) async throws -> Reply {
        try await post("sign-up/email", ["email": .string(email), "password": .string(password), "name": .string(email)])
    }

    func signIn(_ email: String, password: String = OpenfortWire.password) async throws -> Reply {
        try await post("sign-in/email", ["email": .string(email), "password": .string(password)])
    }

    func session(_ token: String) async throws -> Reply {
        try await get("get-session?disableCookieCache=true", bearer: token)
    }

    func me(_ token: String) async throws -> Reply {
        try await send(.get, "/openfort/iam/v2/me", bearer: token)
    }

    /// `POST /openfort/__emulator/users`.
    func seed(_ email: String, password: String = OpenfortWire.password, verified: Bool = false) async throws {
        let reply = try await send(
            .post, "/openfort/__emulator/users",
            json: ["email": .string(email), "password": .string(password), "emailVerified": .bool(verified)], key: nil
        )
        #expect(reply.status == 200)
    }

    /// The newest pending OTP of `email` from the hook.
    func otp(_ email: String) async throws -> String {
        let reply = try await send(.get, "/openfort/__emulator/otp?email=\(email)", key: nil)
        return try #require(reply.string("otp"))
    }

    /// The link tokens hook.
    func tokens(_ email: String) async throws -> Reply {
        try await send(.get, "/openfort/__emulator/tokens?email=\(email)", key: nil)
    }

    func requireVerification(_ on: Bool) async throws {
        let reply = try await send(.patch, "/openfort/__emulator/config", json: ["requireEmailVerification": .bool(on)], key: nil)
        #expect(reply["requireEmailVerification"] == .bool(on))
    }

    /// Follows the `url` of an OAuth start to the authorize hook and returns its (302) reply.
    func authorize(_ url: String, extra: String = "") async throws -> Reply {
        let base = emulator.baseURL.absoluteString
        #expect(url.hasPrefix(base + "/openfort/__emulator/oauth/authorize?"))
        return try await send(.get, String(url.dropFirst(base.count)) + extra, key: nil)
    }
}
