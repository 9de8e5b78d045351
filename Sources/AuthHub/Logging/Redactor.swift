import Foundation
import HTTPTypes

/// Decides which header, field and parameter names carry secrets, and produces redacted renderings
/// of URLs, headers and bodies for logs.
///
/// The rule is broad on purpose: any name containing one of ``sensitiveFragments`` (password, token,
/// code, secret, key, session, stamp, …) is redacted, wherever it appears — JSON at any depth, form
/// fields, query parameters, headers. Over-redaction costs a little debuggability; a leaked token
/// costs an account. Three things narrow it, so that logs still show what is not a secret:
/// - names in ``allowed`` (`token_type`, `expires_in`, `timestampMs`, `challenge_type`, …);
/// - JSON booleans (`returnSecureToken: true`, `disableCookieCache: true`): a flag is never a
///   secret; and JSON numbers, unless the name is one of ``numericSecretFragments`` (a numeric
///   one-time code or PIN);
/// - inside an `error` object (or the objects of an `errors` list), the members ``errorMembers``
///   (`code`, `message`, `reason`, …): there `code` is an error code, not an authorization code.
public struct Redactor: Sendable {
    /// Lowercased fragments that make a name sensitive.
    public static let sensitiveFragments: [String] = [
        "password", "passwd", "token", "secret", "code", "otp", "key", "session", "assertion", "signature",
        "credential", "stamp", "verifier", "bundle", "jwt", "cookie", "authorization", "auth_session",
        "pin", "nonce", "state", "private", "attestation", "authenticatordata", "clientdata", "challenge",
        // My Account's `barcode_uri` (an otpauth URI holding the TOTP secret), the Management API's
        // `link_with` (an ID token) and Firebase's `oobLink` (a link holding the action code).
        "barcode", "link",
        // DPoP proofs (RFC 9449): replayable within their lifetime with the token they name.
        "dpop",
    ]

    /// Fragments of names whose *numeric* values are still secrets (a one-time code sent as a number).
    public static let numericSecretFragments: [String] = ["otp", "pin", "passcode", "password"]

    /// The text shown instead of a secret.
    public static let placeholder = "<redacted>"

    /// Names that are never sensitive even though they contain a fragment: metadata about tokens
    /// and flows, useful to see.
    public static let allowed: Set<String> = [
        "token_type", "tokentype", "code_challenge_method", "response_type", "grant_type", "expires_in",
        "expiresin", "statuscode", "status_code", "error_code", "errorcode", "timestampms", "timestamp_ms",
        "challenge_type", "challengetype", "challenge_types", "issued_token_type", "requested_token_type",
        "subject_token_type", "stampheadername", "credential_type", "credentialtype", "key_type", "keytype",
    ]

    /// Members of an error object shown whatever their names contain (`code` is an error code there).
    public static let errorMembers: Set<String> = ["code", "message", "reason", "status", "domain", "error_code", "errorcode"]
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
    public static func headers(_ fields: HTTPFields) -> String {
        fields.map { "\($0.name.rawName): \(isSensitive($0.name.rawName) ? placeholder : $0.value)" }.joined(separator: ", ")
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
        redact(value, inError: false)
    }

    private static func redact(_ value: JSONValue, inError: Bool) -> JSONValue {
        switch value {
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for (k, v) in members {
                let lower = k.lowercased()
                if inError && errorMembers.contains(lower) {
                    out[k] = redact(v, inError: false)
                } else if isSensitive(k) && !isShownScalar(v, name: lower) {
                    out[k] = .string(placeholder)
                } else {
                    out[k] = redact(v, inError: lower == "error" || lower == "errors")
                }
            }
            return .object(out)
        case .array(let items):
            return .array(items.map { redact($0, inError: inError) })
        default:
            return value
        }
    }

    /// Whether a value under a sensitive name is still shown: a boolean, or a number whose name is
    /// not a numeric secret.
    private static func isShownScalar(_ value: JSONValue, name: String) -> Bool {
        switch value {
        case .bool: return true
        case .number: return !numericSecretFragments.contains { name.contains($0) }
        default: return false
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
