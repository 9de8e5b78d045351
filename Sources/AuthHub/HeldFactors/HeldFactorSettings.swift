import Foundation

/// providers.json's `heldFactors` of an environment: which providers' users may hold AuthHub's own
/// factors, which kinds, and how they are presented. Turned into a ``HeldFactorService`` by the
/// registry's ``HeldFactorServiceFactory`` (`ProviderRegistry.builtIn` has `AuthHubFactors`'), which
/// the hub installs (``AuthHub/useHeldFactors(_:)``).
///
/// ```json
/// "heldFactors": {"providers": ["openfort"], "kinds": ["totp", "passkey", "recoveryCode"],
///                 "issuer": "Example", "relyingPartyID": "app.example.com", "origins": ["https://app.example.com"]}
/// ```
public struct HeldFactorSettings: Sendable, Hashable {
    /// Provider ids (of this environment) whose users may hold factors; at least one.
    public var providers: [String]
    /// `totp`, `passkey`, `recoveryCode`; by default all three with a `relyingPartyID`, else the
    /// first and the last.
    public var kinds: [FactorKind]
    /// The name an authenticator app shows; `AuthHub` when absent.
    public var issuer: String?
    /// The WebAuthn relying party id passkeys are made for (a domain: `app.example.com`).
    public var relyingPartyID: String?
    /// The web origins passkeys may be used from; `https://<relyingPartyID>` when empty.
    public var origins: [String]

    public init(providers: [String], kinds: [FactorKind]? = nil, issuer: String? = nil, relyingPartyID: String? = nil, origins: [String] = []) {
        self.providers = providers
        self.kinds = kinds ?? (relyingPartyID == nil ? [.totp, .recoveryCode] : [.totp, .passkey, .recoveryCode])
        self.issuer = issuer
        self.relyingPartyID = relyingPartyID
        self.origins = origins
    }

    static let keys = ["providers", "kinds", "issuer", "relyingPartyID", "origins"]
    static let knownKinds: [FactorKind] = [.totp, .passkey, .recoveryCode]

    static let summary = "AuthHub's own second factors (TOTP, passkeys, recovery codes) for providers without them, "
        + "kept in the session store and asked for after the provider's sign-in; absent: off."

    /// The JSON Schema of the object.
    static var schema: JSONValue {
        [
            "type": "object",
            "additionalProperties": false,
            "required": ["providers"],
            "description": .string(summary),
            "properties": [
                "providers": ["type": "array", "minItems": 1, "items": ["type": "string"],
                              "description": "Provider ids of this environment whose users may hold factors."],
                "kinds": ["type": "array", "items": ["enum": .array(knownKinds.map { .string($0.rawValue) })],
                          "description": "The factors offered; all three with relyingPartyID, else totp and recoveryCode."],
                "issuer": ["type": "string", "description": "The name an authenticator app shows; AuthHub when absent."],
                "relyingPartyID": ["type": "string", "description": "The WebAuthn relying party id (a domain) passkeys are made for."],
                "origins": ["type": "array", "items": ["type": "string"],
                            "description": "Web origins passkeys may be used from; https://<relyingPartyID> when absent."],
            ],
        ]
    }
}

/// Makes the ``HeldFactorService`` of an environment's ``HeldFactorSettings`` (registered with
/// ``ProviderRegistry/registering(heldFactorFactory:)``; `ProviderRegistry.builtIn` has
/// `AuthHubFactors`' `HeldFactorsFactory`).
public protocol HeldFactorServiceFactory: Sendable {
    /// The service for `settings`, keeping its factors in `store` (the session store's).
    func makeService(_ settings: HeldFactorSettings, store: (any HeldFactorStore)?, context: ProviderContext) throws -> any HeldFactorService
}
