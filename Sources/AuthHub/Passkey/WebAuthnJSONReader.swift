import Foundation

/// Reads members of WebAuthn's JSON forms with errors that name the member, so a malformed reply
/// from a provider becomes one clear ``AuthError`` instead of a crash or a silent default.
struct WebAuthnJSONReader {
    let json: JSONValue
    let what: String
    let path: String?

    init(_ json: JSONValue, what: String, path: String? = nil) {
        self.json = json
        self.what = what
        self.path = path
    }

    func problem(_ text: String) -> AuthError {
        AuthError(.invalidRequest, message: "Invalid \(what): \(text).")
    }

    private func name(_ key: String) -> String { path.map { "\($0).\(key)" } ?? key }

    func object(_ key: String) throws -> [String: JSONValue] {
        guard let value = json[key] else { throw problem("\(name(key)) is missing") }
        guard let object = value.objectValue else { throw problem("\(name(key)) must be an object, not \(value.typeName)") }
        return object
    }

    func array(_ key: String) throws -> [JSONValue] {
        guard let value = json[key] else { throw problem("\(name(key)) is missing") }
        guard let array = value.arrayValue else { throw problem("\(name(key)) must be an array, not \(value.typeName)") }
        return array
    }

    func string(_ key: String) throws -> String {
        guard let value = try optionalString(key) else { throw problem("\(name(key)) is missing") }
        return value
    }

    func optionalString(_ key: String) throws -> String? {
        guard let value = json[key], value != .null else { return nil }
        guard let string = value.stringValue else { throw problem("\(name(key)) must be a string, not \(value.typeName)") }
        return string
    }

    /// A base64url member decoded to bytes.
    func bytes(_ key: String) throws -> [UInt8] {
        let text = try string(key)
        guard let data = Base64URL.decode(text) else { throw problem("\(name(key)) is not base64url") }
        return [UInt8](data)
    }

    /// An optional member decoded from base64url.
    func optionalBytes(_ key: String) throws -> [UInt8]? {
        guard let text = try optionalString(key) else { return nil }
        guard let data = Base64URL.decode(text) else { throw problem("\(name(key)) is not base64url") }
        return [UInt8](data)
    }

    /// `[{type: "public-key", id: <base64url>}]`, or `[]` when missing.
    func credentialIDs(_ key: String) throws -> [[UInt8]] {
        guard let value = json[key], value != .null else { return [] }
        guard let list = value.arrayValue else { throw problem("\(name(key)) must be an array, not \(value.typeName)") }
        return try list.enumerated().map { index, entry in
            guard let text = entry["id"]?.stringValue, let data = Base64URL.decode(text) else {
                throw problem("\(name(key))[\(index)].id must be a base64url string")
            }
            return [UInt8](data)
        }
    }

    /// WebAuthn's `PublicKeyCredential` JSON envelope around a response: `{id, rawId, type:
    /// "public-key", authenticatorAttachment?, response, clientExtensionResults: {}}`.
    static func credentialJSON(id: [UInt8], response: [String: JSONValue], attachment: String?) -> JSONValue {
        var credential: [String: JSONValue] = [
            "id": .string(Base64URL.encode(id)),
            "rawId": .string(Base64URL.encode(id)),
            "type": "public-key",
            "response": .object(response),
            "clientExtensionResults": .object([:]),
        ]
        if let attachment { credential["authenticatorAttachment"] = .string(attachment) }
        return .object(credential)
    }

    /// Reads that envelope: the credential ID (checked against `rawId`), a reader of `response`,
    /// and the attachment.
    static func readCredential(_ json: JSONValue, what: String) throws
        -> (id: [UInt8], response: WebAuthnJSONReader, attachment: String?)
    {
        let reader = WebAuthnJSONReader(json, what: what)
        let id = try reader.bytes("id")
        if let rawID = try reader.optionalBytes("rawId"), rawID != id { throw reader.problem("id and rawId differ") }
        if let type = try reader.optionalString("type"), type != "public-key" {
            throw reader.problem("type must be \"public-key\"")
        }
        let response = WebAuthnJSONReader(.object(try reader.object("response")), what: what, path: "response")
        return (id, response, try reader.optionalString("authenticatorAttachment"))
    }

    /// The longest ceremony timeout kept: ten minutes, the upper end of WebAuthn's recommended range.
    static let maxTimeoutMilliseconds: Double = 600_000

    /// A `timeout` in milliseconds from a server's options: a positive, finite number, clamped to
    /// ``maxTimeoutMilliseconds``; anything else (absent, zero, negative, NaN, `1e300`) is no timeout.
    /// `timeout` in whole milliseconds for the JSON forms, computed in floating point (a `Duration`
    /// of any size cannot overflow) and clamped like a read one.
    static func milliseconds(_ timeout: Duration) -> Double {
        let (seconds, attoseconds) = timeout.components
        return Swift.min(Swift.max(0, (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded()), maxTimeoutMilliseconds)
    }

    static func timeout(_ value: JSONValue?) -> Duration? {
        guard let milliseconds = value?.doubleValue, milliseconds.isFinite, milliseconds > 0 else { return nil }
        return .milliseconds(Int64(Swift.min(milliseconds, maxTimeoutMilliseconds).rounded()))
    }
}
