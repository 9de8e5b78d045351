import Foundation

/// Decides which header, field and parameter names carry secrets, and produces redacted renderings
/// of URLs, headers and bodies for logs.
///
/// The rule is broad on purpose: any name containing one of ``sensitiveFragments`` (password, token,
/// code, secret, key, session, stamp, …) is redacted, wherever it appears — JSON at any depth, form
/// fields, query parameters, headers. Over-redaction costs a little debuggability; a leaked token
/// costs an account.
public struct Redactor: Sendable {
    /// Lowercased fragments that make a name sensitive.
    public static let sensitiveFragments: [String] = [
        "password", "passwd", "token", "secret", "code", "otp", "key", "session", "assertion", "signature",
        "credential", "stamp", "verifier", "bundle", "jwt", "cookie", "authorization", "auth_session",
        "pin", "nonce", "state", "private", "attestation", "authenticatordata", "clientdata", "challenge",
        // My Account's `barcode_uri` (an otpauth URI holding the TOTP secret), the Management API's
        // `link_with` (an ID token) and Firebase's `oobLink` (a link holding the action code).
        "barcode", "link",
    ]

    /// The text shown instead of a secret.
    public static let placeholder = "<redacted>"

    /// Names that are never sensitive even though they contain a fragment (e.g. `grant_type` has none,
    /// but `token_type`, `expires_in` style metadata is useful to see).
    public static let allowed: Set<String> = [
        "token_type", "tokentype", "code_challenge_method", "response_type", "grant_type", "expires_in",
        "expiresin", "statuscode", "status_code", "error_code", "errorcode",
    ]

    public init() {}

    /// Whether a header, field or parameter name is sensitive.
    public static func isSensitive(_ name: String) -> Bool {
        let lower = name.lowercased()
        if allowed.contains(lower) { return false }
        return sensitiveFragments.contains { lower.contains($0) }
    }

    /// The URL with sensitive query values and any fragment redacted, user info removed.
    public static func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<invalid url>" }
        components.user = nil
        components.password = nil
        if components.fragment != nil { components.fragment = placeholder }
        if let items = components.queryItems {
            components.queryItems = items.map { item in
                isSensitive(item.name) ? URLQueryItem(name: item.name, value: placeholder) : item
            }
        }
        return components.string ?? "<invalid url>"
    }

    /// Headers as `Name: value` pairs with sensitive values redacted.
    public static func headers(_ headers: HTTPHeaders) -> String {
        headers.map { "\($0.name): \(isSensitive($0.name) ? placeholder : $0.value)" }.joined(separator: ", ")
    }

    /// A body rendered for a log: JSON with sensitive members redacted at any depth, a form with
    /// sensitive fields redacted, or just its size when it is neither.
    public static func body(_ data: Data?, contentType: String?) -> String {
        guard let data, !data.isEmpty else { return "<empty>" }
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") {
            return form(String(decoding: data, as: UTF8.self))
        }
        if let json = try? JSONValue.parse(data) {
            return render(redact(json))
        }
        return "<\(data.count) bytes>"
    }

    /// A JSON value with sensitive members replaced by the placeholder.
    public static func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for (k, v) in members {
                out[k] = isSensitive(k) ? .string(placeholder) : redact(v)
            }
            return .object(out)
        case .array(let items):
            return .array(items.map(redact))
        default:
            return value
        }
    }

    static func form(_ text: String) -> String {
        text.split(separator: "&").map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1)
            let name = String(parts.first ?? "")
            let decodedName = name.removingPercentEncoding ?? name
            return isSensitive(decodedName) ? "\(name)=\(placeholder)" : String(pair)
        }.joined(separator: "&")
    }

    static func render(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "<unrenderable>"
    }
}
