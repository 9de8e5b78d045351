import AuthHub
import Foundation

/// WebAuthn's collected client data (WebAuthn, section 5.8.1): what the client signed besides the authenticator
/// data — the ceremony type, the relying party's challenge and the client's origin.
public struct CollectedClientData: Sendable, Hashable {
    /// `webauthn.create` for registration.
    public static let createType = "webauthn.create"
    /// `webauthn.get` for authentication.
    public static let getType = "webauthn.get"

    /// The ceremony type.
    public var type: String
    /// The challenge, as base64url in the JSON.
    public var challenge: [UInt8]
    /// The origin of the client.
    public var origin: String
    /// Whether the call came from a cross-origin frame.
    public var crossOrigin: Bool
    /// The top-level origin, for a cross-origin call.
    public var topOrigin: String?

    /// Creates client data.
    public init(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false, topOrigin: String? = nil) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
    }

    /// Parses `clientDataJSON`.
    /// - Throws: ``AuthErrorCode/webAuthnMalformedResponse`` for bytes that are not a JSON object
    ///   with string `type`, base64url `challenge` and string `origin`.
    public init(json bytes: [UInt8]) throws {
        let value: JSONValue
        do { value = try JSONValue.parse(Data(bytes)) } catch {
            throw CollectedClientData.malformed("it is not JSON")
        }
        guard value.objectValue != nil else { throw CollectedClientData.malformed("it is not a JSON object") }
        guard let type = value["type"]?.stringValue else { throw CollectedClientData.malformed("type is missing") }
        guard let challengeText = value["challenge"]?.stringValue, let challenge = Base64URL.decode(challengeText) else {
            throw CollectedClientData.malformed("challenge is missing or not base64url")
        }
        guard let origin = value["origin"]?.stringValue else { throw CollectedClientData.malformed("origin is missing") }
        // Token binding (WebAuthn Level 2) is obsolete, but an object that is present must be
        // well-formed. Some U2F security keys send a bare string ("unused"), which is ignored.
        if let binding = value["tokenBinding"], binding.objectValue != nil {
            guard let status = binding["status"]?.stringValue, ["present", "supported"].contains(status) else {
                throw CollectedClientData.malformed("tokenBinding.status must be \"present\" or \"supported\"")
            }
        }
        self.init(type: type, challenge: [UInt8](challenge), origin: origin,
                  crossOrigin: value["crossOrigin"]?.boolValue ?? false, topOrigin: value["topOrigin"]?.stringValue)
    }

    /// The JSON serialization browsers produce (WebAuthn, section 5.8.1.1): `type`, `challenge`, `origin`,
    /// `crossOrigin` in that order, then `topOrigin` when set.
    public var jsonBytes: [UInt8] {
        var text = "{\"type\":\(Self.quoted(type)),\"challenge\":\(Self.quoted(Base64URL.encode(challenge)))"
        text += ",\"origin\":\(Self.quoted(origin)),\"crossOrigin\":\(crossOrigin)"
        if let topOrigin { text += ",\"topOrigin\":\(Self.quoted(topOrigin))" }
        text += "}"
        return Array(text.utf8)
    }

    /// A JSON string literal per the WebAuthn serialization: `"` and `\` escaped, control
    /// characters as `\uXXXX`.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func malformed(_ text: String) -> AuthError {
        AuthError(.webAuthnMalformedResponse, message: "Malformed clientDataJSON: \(text).")
    }
}
