import AuthHub
import AuthHubEmulator
import Foundation
import Testing

/// Talks to the emulator's Firebase routes over real HTTP, building every request from
/// spec/firebase.md by hand (no client module).
struct FirebaseWire {
    let emulator: RunningEmulator
    let transport = URLSessionTransport(defaultTimeout: .seconds(30))
    static let projectId = "authhub-dev"
    static let key = "any-test-key"
    static let password = "secret-123"

    struct Reply {
        let status: Int
        let body: Data
        var json: JSONValue? { try? JSONValue.parse(body) }
        /// `error.message` of the §5 envelope.
        var error: String? { json?["error"]?["message"]?.stringValue }
        subscript(name: String) -> JSONValue? { json?[name] }
        func string(_ name: String) -> String? { json?[name]?.stringValue }
    }

    /// The exact emulator body of a plain 400 (spec §5): no `status`.
    static func envelope(_ message: String) -> JSONValue {
        ["error": ["code": 400, "message": .string(message), "errors": [["message": .string(message), "reason": "invalid", "domain": "global"]]]]
    }

    func send(_ method: HTTPRequest.Method, _ path: String, headerFields headers: HTTPFields = [:], body: Data? = nil) async throws -> Reply {
        let response = try await transport.send(method, emulator.url(path), headerFields: headers, body: body)
        return Reply(status: response.status, body: response.body)
    }

    func postJSON(_ path: String, _ json: JSONValue, headerFields headers: HTTPFields = [:]) async throws -> Reply {
        var all = headers
        all["Content-Type"] = "application/json"
        return try await send(.post, path, headerFields: all, body: try JSONEncoder().encode(json))
    }

    /// `POST /identitytoolkit.googleapis.com/v1/accounts:<op>?key=…`.
    func accounts(_ op: String, _ body: JSONValue, key: String? = FirebaseWire.key, headerFields headers: HTTPFields = [:]) async throws -> Reply {
        let query = key.map { "?key=\($0)" } ?? ""
        return try await postJSON("/identitytoolkit.googleapis.com/v1/accounts:\(op)\(query)", body, headerFields: headers)
    }

    /// An admin call (`Authorization: Bearer owner`, no key).
    func admin(_ op: String, _ body: JSONValue) async throws -> Reply {
        try await accounts(op, body, key: nil, headerFields: [.authorization: "Bearer owner"])
    }

    /// `POST /securetoken.googleapis.com/v1/token` with a form body.
    func refreshForm(_ fields: [(String, String)]) async throws -> Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let form = fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        return try await send(
            .post, "/securetoken.googleapis.com/v1/token?key=\(Self.key)",
            headerFields: [.contentType: "application/x-www-form-urlencoded"], body: Data(form.utf8)
        )
    }

    func refresh(_ refreshToken: String) async throws -> Reply {
        try await refreshForm([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
    }

    /// `/emulator/v1/projects/authhub-dev/<rest>`.
    func helper(_ method: HTTPRequest.Method, _ rest: String, json: JSONValue? = nil) async throws -> Reply {
        let path = "/emulator/v1/projects/\(Self.projectId)/\(rest)"
        if let json {
            return try await send(method, path, headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(json))
        }
        return try await send(method, path)
    }

    /// Seeds an account through AuthHub's hook and returns its localId.
    @discardableResult
    func seed(_ email: String, password: String = FirebaseWire.password, extra: [String: JSONValue] = [:]) async throws -> String {
        var body: [String: JSONValue] = ["email": .string(email), "password": .string(password)]
        body.merge(extra) { _, new in new }
        let reply = try await helper(.post, "accounts", json: .object(body))
        #expect(reply.status == 200)
        return try #require(reply.string("localId"))
    }

    /// Signs up and returns `(localId, idToken, refreshToken)`.
    func signUp(_ email: String, password: String = FirebaseWire.password) async throws -> (String, String, String) {
        let reply = try await accounts("signUp", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
        #expect(reply.status == 200)
        return (try #require(reply.string("localId")), try #require(reply.string("idToken")), try #require(reply.string("refreshToken")))
    }

    func signIn(_ email: String, password: String = FirebaseWire.password) async throws -> Reply {
        try await accounts("signInWithPassword", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
    }

    func lookup(_ idToken: String) async throws -> Reply {
        try await accounts("lookup", ["idToken": .string(idToken)])
    }

    func setPrivacy(_ on: Bool) async throws {
        let reply = try await helper(.patch, "config", json: ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(on)]])
        #expect(reply.status == 200)
    }

    /// The pending oob codes.
    func oobCodes() async throws -> [JSONValue] {
        try #require(try await helper(.get, "oobCodes").json?["oobCodes"]?.arrayValue)
    }
}

/// A JWT's three parts: decoded header and payload, raw signature.
struct DecodedJWT {
    let header: JSONValue
    let payload: JSONValue
    let signature: Substring

    init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        header = try JSONValue.parse(try #require(Base64URL.decode(String(parts[0]))))
        payload = try JSONValue.parse(try #require(Base64URL.decode(String(parts[1]))))
        signature = parts[2]
    }
}
