import AuthHub

/// An enrolled MFA authenticator (`GET /mfa/authenticators`, <doc:Auth0Endpoints>: “MFA”).
public struct Auth0Authenticator: Sendable, Hashable, Decodable {
    /// The authenticator id (`authenticator_id` of a challenge).
    public var id: String
    /// `otp`, `oob`, `recovery-code`, …
    public var authenticatorType: String
    /// `sms`, `email`, `auth0` (push), … for `oob`.
    public var oobChannel: String?
    /// A name shown to the user.
    public var name: String?
    /// Whether it is active.
    public var active: Bool
    /// The factor type the caller filters on (`otp`, `sms`, …).
    public var type: String?

    /// Creates an authenticator.
    public init(id: String, authenticatorType: String, oobChannel: String? = nil, name: String? = nil, active: Bool,
                type: String? = nil) {
        self.id = id
        self.authenticatorType = authenticatorType
        self.oobChannel = oobChannel
        self.name = name
        self.active = active
        self.type = type
    }
}

extension Auth0Authenticator {
    enum CodingKeys: String, CodingKey {
        case id, authenticatorType = "authenticator_type", oobChannel = "oob_channel", name, active, type
    }

    /// Decodes one entry of `GET /mfa/authenticators`: `id` and `authenticator_type` are required,
    /// `active` is false when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id),
                  authenticatorType: try container.decode(String.self, forKey: .authenticatorType),
                  oobChannel: try container.decodeIfPresent(String.self, forKey: .oobChannel),
                  name: try container.decodeIfPresent(String.self, forKey: .name),
                  active: try container.decodeIfPresent(Bool.self, forKey: .active) ?? false,
                  type: try container.decodeIfPresent(String.self, forKey: .type))
    }
}
