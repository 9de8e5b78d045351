import enum AuthHub.JSONValue
import Foundation
import Hummingbird

/// The parameters of one Auth0 request: a JSON object body, a form-urlencoded body (which Auth0
/// also accepts, AuthHubAuth0 docs, Auth0Endpoints: “Conventions”) or a query string.
struct Auth0Parameters: Sendable {
    /// The largest body the emulator reads.
    static let maximumBodySize = 1 << 20

    /// The values by name.
    var values: [String: JSONValue]

    init(_ values: [String: JSONValue] = [:]) {
        self.values = values
    }

    /// Reads the body of `request`: JSON when the content type says so or the body starts with `{`,
    /// form-urlencoded otherwise. An empty body gives no parameters.
    /// - Throws: ``Auth0Failure`` `invalid_request` for a body that is too large or not a JSON object.
    static func body(of request: Request) async throws -> Auth0Parameters {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodySize)
        } catch {
            throw Auth0Failure.invalidRequest("The request body is too large.")
        }
        let data = Data(buffer.readableBytesView)
        if data.isEmpty { return Auth0Parameters() }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if contentType.hasPrefix("application/json") || data.first == UInt8(ascii: "{") {
            guard let object = (try? JSONValue.parse(data))?.objectValue else {
                throw Auth0Failure.invalidRequest("The request body must be a JSON object.")
            }
            return Auth0Parameters(object)
        }
        return Auth0Parameters(form: String(decoding: data, as: UTF8.self))
    }

    /// Reads the query string of `request`.
    static func query(of request: Request) -> Auth0Parameters {
        Auth0Parameters(form: request.uri.query ?? "")
    }

    /// Parses `a=b&c=d` with `+` as space and percent-escapes decoded; the first value of a
    /// repeated name wins.
    init(form: String) {
        var values: [String: JSONValue] = [:]
        for pair in form.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if !name.isEmpty, values[name] == nil { values[name] = .string(value) }
        }
        self.values = values
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The value of `name` as a non-empty string (numbers and booleans are rendered), or nil.
    func string(_ name: String) -> String? {
        switch values[name] {
        case .string(let text): return text.isEmpty ? nil : text
        case .number: return values[name]?.intValue.map(String.init)
        case .bool(let flag): return flag ? "true" : "false"
        default: return nil
        }
    }

    /// The value of `name`, or a `400 invalid_request` naming it.
    func required(_ name: String) throws -> String {
        guard let value = string(name) else { throw Auth0Failure.missing(name) }
        return value
    }

    /// The raw JSON value of `name`.
    subscript(name: String) -> JSONValue? { values[name] }
}

extension Request {
    /// The bearer token of the `Authorization` header, if any.
    var bearerToken: String? {
        guard let header = headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
