import Foundation

/// What a relying party asks an authenticator to create: the equivalent of the
/// `PublicKeyCredentialCreationOptions` passed to `navigator.credentials.create`, plus the origin of
/// the client making the call (there is no browser to supply it).
///
/// Providers return these options as JSON (Auth0's `authn_params_public_key`, WebAuthn's
/// `PublicKeyCredentialCreationOptionsJSON`); ``init(json:origin:)`` reads that form.
public struct PasskeyRegistrationOptions: Sendable, Hashable {
    /// The relying party.
    public var relyingParty: PasskeyRelyingParty
    /// The account.
    public var user: PasskeyUser
    /// The relying party's one-time challenge.
    public var challenge: [UInt8]
    /// The origin of the client (`https://example.com`); it lands in `clientDataJSON`.
    public var origin: String
    /// Acceptable signature algorithms, most preferred first.
    public var algorithms: [COSEAlgorithm]
    /// The user-verification requirement.
    public var userVerification: PasskeyUserVerification
    /// The discoverable-credential requirement.
    public var residentKey: PasskeyResidentKey
    /// Credential IDs the user already has here; an authenticator holding one of them refuses to
    /// create another.
    public var excludeCredentials: [[UInt8]]
    /// The attestation conveyance the relying party asked for (`none`, `indirect`, `direct`, `enterprise`).
    public var attestation: String
    /// How long the client should wait for the user, if the relying party said.
    public var timeout: Duration?

    /// Creates options.
    /// - Parameter origin: defaults to `https://<rp id>`.
    public init(
        relyingParty: PasskeyRelyingParty,
        user: PasskeyUser,
        challenge: [UInt8],
        origin: String? = nil,
        algorithms: [COSEAlgorithm] = [.es256, .rs256],
        userVerification: PasskeyUserVerification = .preferred,
        residentKey: PasskeyResidentKey = .preferred,
        excludeCredentials: [[UInt8]] = [],
        attestation: String = "none",
        timeout: Duration? = nil
    ) {
        self.relyingParty = relyingParty
        self.user = user
        self.challenge = challenge
        self.origin = origin ?? "https://\(relyingParty.id)"
        self.algorithms = algorithms
        self.userVerification = userVerification
        self.residentKey = residentKey
        self.excludeCredentials = excludeCredentials
        self.attestation = attestation
        self.timeout = timeout
    }

    /// Reads `PublicKeyCredentialCreationOptionsJSON` (binary members base64url): `rp`, `user`
    /// (`id` base64url), `challenge`, `pubKeyCredParams`, `timeout` (milliseconds),
    /// `excludeCredentials`, `authenticatorSelection` (`residentKey`, `requireResidentKey`,
    /// `userVerification`) and `attestation`.
    ///
    /// A missing `rp.id` defaults to the host of `origin`, as a browser would. Unknown members are
    /// ignored; unknown enum values fall back to the WebAuthn defaults (`preferred`).
    /// - Parameters:
    ///   - json: the options object.
    ///   - origin: the client's origin; defaults to `https://<rp id>`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the first missing or malformed member.
    public init(json: JSONValue, origin: String? = nil) throws {
        let reader = WebAuthnJSONReader(json, what: "passkey creation options")
        let rp = try reader.object("rp")
        let rpReader = WebAuthnJSONReader(.object(rp), what: "passkey creation options", path: "rp")
        let originHost = origin.flatMap { URL(string: $0)?.host }
        guard let rpID = try rpReader.optionalString("id") ?? originHost else {
            throw reader.problem("rp.id is missing and no origin was given to derive it from")
        }
        let userReader = WebAuthnJSONReader(.object(try reader.object("user")), what: "passkey creation options", path: "user")
        let userID = try userReader.bytes("id")
        guard !userID.isEmpty, userID.count <= 64 else {
            throw reader.problem("user.id must be 1 to 64 bytes (it has \(userID.count))")
        }
        var algorithms: [COSEAlgorithm] = []
        for (index, parameter) in try reader.array("pubKeyCredParams").enumerated() {
            guard let alg = parameter["alg"]?.intValue else {
                throw reader.problem("pubKeyCredParams[\(index)].alg must be an integer")
            }
            if (parameter["type"]?.stringValue ?? "public-key") == "public-key" {
                algorithms.append(COSEAlgorithm(rawValue: alg))
            }
        }
        let selection = json["authenticatorSelection"]?.objectValue ?? [:]
        var residentKey = selection["residentKey"]?.stringValue.flatMap(PasskeyResidentKey.init(rawValue:))
        if residentKey == nil, selection["requireResidentKey"]?.boolValue == true { residentKey = .required }
        self.init(
            relyingParty: PasskeyRelyingParty(id: rpID, name: try rpReader.optionalString("name") ?? rpID),
            user: PasskeyUser(id: userID, name: try userReader.optionalString("name") ?? "",
                              displayName: try userReader.optionalString("displayName") ?? ""),
            challenge: try reader.bytes("challenge"),
            origin: origin,
            algorithms: algorithms,
            userVerification: selection["userVerification"]?.stringValue
                .flatMap(PasskeyUserVerification.init(rawValue:)) ?? .preferred,
            residentKey: residentKey ?? .discouraged,
            excludeCredentials: try reader.credentialIDs("excludeCredentials"),
            attestation: try reader.optionalString("attestation") ?? "none",
            timeout: WebAuthnJSONReader.timeout(json["timeout"])
        )
    }

    /// The options as `PublicKeyCredentialCreationOptionsJSON` (binary members base64url), what a
    /// page hands to `navigator.credentials.create` after decoding them (``init(json:origin:)`` reads
    /// it back).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "rp": ["id": .string(relyingParty.id), "name": .string(relyingParty.name)],
            "user": ["id": .string(Base64URL.encode(user.id)), "name": .string(user.name), "displayName": .string(user.displayName)],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(algorithms.map { ["type": "public-key", "alg": .number(Double($0.rawValue))] }),
            "authenticatorSelection": ["residentKey": .string(residentKey.rawValue), "requireResidentKey": .bool(residentKey == .required),
                                       "userVerification": .string(userVerification.rawValue)],
            "excludeCredentials": .array(excludeCredentials.map { ["type": "public-key", "id": .string(Base64URL.encode($0))] }),
            "attestation": .string(attestation),
        ]
        if let timeout { object["timeout"] = .number(WebAuthnJSONReader.milliseconds(timeout)) }
        return .object(object)
    }
}
