import AuthHub
import Foundation
import HTTPTypes

/// The suite's HTTP client: real requests to the app on loopback, redirects not followed, cookies
/// sent as the caller names them (the suite plays a browser, and an attacker).
struct WebConformanceClient: Sendable {
    let baseURL: URL
    let transport = URLSessionTransport(defaultTimeout: .seconds(15), followRedirects: false)

    func send(_ method: HTTPRequest.Method, _ path: String, cookies: [(String, String)] = [], headers: HTTPFields = [:],
              form: String? = nil) async throws -> WebConformanceReply {
        guard let url = URL(string: baseURL.absoluteString + path) else { throw AuthError(.invalidRequest, message: "bad path \(path)") }
        var fields = headers
        if !cookies.isEmpty { fields[.cookie] = cookies.map { "\($0.0)=\($0.1)" }.joined(separator: "; ") }
        if form != nil, fields[.contentType] == nil { fields[.contentType] = "application/x-www-form-urlencoded" }
        let reply = try await transport.send(method, url, headerFields: fields, body: form.map { Data($0.utf8) })
        return WebConformanceReply(status: reply.status, headers: reply.headerFields, body: String(decoding: reply.body, as: UTF8.self))
    }

    func get(_ path: String, cookies: [(String, String)] = [], headers: HTTPFields = [:]) async throws -> WebConformanceReply {
        try await send(.get, path, cookies: cookies, headers: headers)
    }
}

struct WebConformanceReply: Sendable {
    let status: Int
    let headers: HTTPFields
    let body: String

    /// The value of cookie `name` a browser keeps after this reply: the last `Set-Cookie` of that
    /// name (nil when none; "" when cleared).
    func cookie(_ name: String) -> String? {
        var value: String?
        for header in setCookies {
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0] == name { value = String(pair[1]) }
        }
        return value
    }

    /// The attributes of the last `Set-Cookie` of `name`, lowercased.
    func cookieAttributes(_ name: String) -> [String] {
        guard let header = setCookies.last(where: { $0.hasPrefix(name + "=") }) else { return [] }
        return header.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// Every `Set-Cookie` value: the client's HTTP stack may join repeated fields with commas, and
    /// AuthHub's cookies have no attribute holding one (no `Expires`), so a comma separates cookies.
    var setCookies: [String] {
        headers[values: .setCookie].flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    var location: String? { headers[.location] }
    var summary: String { "HTTP \(status) \(body.prefix(120).debugDescription)" }
}

/// Failures of one check, in order.
struct Failures: Sendable {
    var messages: [String] = []

    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { messages.append(message()) }
    }

    mutating func expectStatus(_ reply: WebConformanceReply, _ status: Int, _ what: String) {
        expect(reply.status == status, "\(what): expected HTTP \(status), got \(reply.summary)")
    }
}
