import AuthHub
import Foundation

/// A browser played over HTTP for the demo, tests and scripts that drive the emulator's pages: a cookie jar per origin (host and port), form
/// posts, and redirects followed on request. Enough to walk a provider's login and consent pages
/// over loopback; it runs no scripts and ignores cookie attributes (path, expiry, `Secure`).
public final class CookieBrowser: Sendable {
    public let transport: URLSessionTransport
    private let jar = Mutex<[String: [String: String]]>([:])

    public init(timeout: Duration = .seconds(10)) {
        transport = URLSessionTransport(defaultTimeout: timeout, followRedirects: false)
    }

    /// One request with the origin's cookies; the reply's `Set-Cookie` fields update the jar (an
    /// empty value deletes the cookie).
    public func send(_ method: HTTPRequest.Method, _ url: URL, form: [(String, String)]? = nil, origin: String? = nil) async throws -> HTTPReply {
        let key = Self.key(url)
        var fields = HTTPFields()
        let cookies = jar.withLock { $0[key] ?? [:] }.map { "\($0.key)=\($0.value)" }.sorted()
        if !cookies.isEmpty { fields[.cookie] = cookies.joined(separator: "; ") }
        if let origin { fields[.origin] = origin }
        var body: Data?
        if let form {
            fields[.contentType] = "application/x-www-form-urlencoded"
            body = Data(FormEncoding.encode(form).utf8)
        }
        let reply = try await transport.send(method, url, headerFields: fields, body: body)
        for header in reply.headerFields[values: .setCookie].flatMap(Self.cookies) {
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            let name = String(pair[0]).trimmingCharacters(in: .whitespaces), value = String(pair[1])
            jar.withLock { $0[key, default: [:]][name] = value.isEmpty || value == "\"\"" ? nil : value }
        }
        return reply
    }

    /// Follows redirects (relative ones against `url`) until a non-3xx reply; returns it and the
    /// URL it came from.
    public func follow(_ method: HTTPRequest.Method, _ url: URL, form: [(String, String)]? = nil, origin: String? = nil) async throws -> (HTTPReply, URL) {
        var reply = try await send(method, url, form: form, origin: origin)
        var current = url
        for _ in 0..<10 where (300...399).contains(reply.status) {
            guard let location = reply.headerFields[.location], let next = URL(string: location, relativeTo: current)?.absoluteURL else { break }
            current = next
            reply = try await send(.get, next)
        }
        return (reply, current)
    }

    /// The value of a cookie the jar holds for `url`'s origin.
    public func cookie(_ name: String, for url: URL) -> String? {
        jar.withLock { $0[Self.key(url)]?[name] }
    }

    private static func key(_ url: URL) -> String { "\(url.host ?? ""):\(url.port ?? 0)" }

    /// The cookies of one `Set-Cookie` value: FoundationNetworking joins several `Set-Cookie`
    /// fields with `, `, which an `Expires` date also contains, so a piece starts a new cookie
    /// only when it begins with `name=`.
    static func cookies(_ value: String) -> [String] {
        var cookies: [String] = []
        for piece in value.components(separatedBy: ", ") {
            let name = piece.prefix { $0 != "=" && $0 != ";" && $0 != " " }
            if let last = cookies.indices.last, !(piece.dropFirst(name.count).first == "=" && !name.isEmpty) {
                cookies[last] += ", " + piece
            } else {
                cookies.append(piece)
            }
        }
        return cookies
    }
}
