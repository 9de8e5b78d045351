import enum AuthHub.JSONValue
import func AuthHub.constantTimeEquals
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import _CryptoExtras

extension Auth0Service {
    // MARK: - Client authentication

    /// Auth0's refusal of a wrong, missing or wrongly presented client secret:
    /// `401 {"error":"access_denied","error_description":"Unauthorized"}` (what Auth0 answers at
    /// `/oauth/token` for a bad `client_secret`, as reported in auth0/node-auth0#682 and
    /// auth0/auth0.js#317; also the "Unauthorized" the SDK maps in spec/auth0.md §1.5). No
    /// `WWW-Authenticate: Basic` challenge goes with it, even after a Basic attempt (RFC 6749,
    /// section 5.2 asks for one, but Auth0's documented reply is the JSON body, and Foundation's
    /// URLSession on Linux stalls on a Basic challenge it has no credential for).
    static func unauthorizedClient(basic: Bool) -> Auth0Failure {
        .oauth("access_denied", "Unauthorized", status: .unauthorized)
    }

    /// A refused client assertion (or a malformed Basic header): `401 invalid_client` (RFC 6749,
    /// section 5.2; Auth0 names the assertion problem in `error_description`).
    static func invalidClient(_ description: String) -> Auth0Failure {
        .oauth("invalid_client", description, status: .unauthorized)
    }

    /// The client a back-channel request comes from, authenticated as its registration demands.
    ///
    /// The client id is the Basic credentials' user, else the body's `client_id`, else the `sub`
    /// of a `client_assertion`; two of them that differ, when one names a confidential client, are
    /// `401 invalid_client`. A client that
    /// was never registered, or registered without a `token_endpoint_auth_method` (``Auth0TokenEndpointAuthMethod/none``),
    /// is public: it needs the body's `client_id` (else `400 invalid_request`, as before) and
    /// nothing more — credentials it sends are ignored. A confidential client must use exactly its
    /// registered method, before anything else of the request is looked at:
    /// - `client_secret_post`: `client_secret` in the body, no Basic header, no assertion;
    /// - `client_secret_basic`: the Basic header, no `client_secret` in the body, no assertion;
    ///   (either refused: ``unauthorizedClient(basic:)``, `401 access_denied` "Unauthorized");
    /// - `private_key_jwt`: `client_assertion_type` (RFC 7523's jwt-bearer URN) and
    ///   `client_assertion`, no secret (else `401 invalid_client`), verified by
    ///   ``Auth0ClientAssertion/verify(_:clientId:audience:credentials:now:)`` with the tenant's
    ///   issuer as the audience, then its `jti` spent (a replay is `401 invalid_client`).
    /// - Returns: the client id and its settings (nil for an unregistered client).
    func authenticateClient(_ request: Request, _ parameters: Auth0Parameters) async throws -> (clientId: String, settings: Auth0ClientSettings?) {
        let basic: Auth0BasicCredentials?
        do {
            basic = try Auth0BasicCredentials.parse(request.headers[.authorization])
        } catch {
            throw Self.invalidClient(error.description)
        }
        let bodyId = parameters.string("client_id")
        let assertion = parameters.string("client_assertion")
        let assertionId = assertion.flatMap(Auth0ClientAssertion.claimedClient)
        let claimed = [basic?.clientId, bodyId, assertionId].compactMap { $0 }
        let tenant = await state.get(Auth0Tenant.key)
        let involvesConfidential = claimed.contains { tenant.clients[$0]?.isConfidential == true }
        if involvesConfidential, let first = claimed.first, claimed.contains(where: { $0 != first }) {
            throw Self.invalidClient("The client_id of the request does not match its client credentials.")
        }
        guard involvesConfidential, let clientId = claimed.first, let settings = tenant.clients[clientId] else {
            let clientId = try parameters.required("client_id")
            return (clientId, tenant.clients[clientId])
        }
        let bodySecret = parameters.string("client_secret")
        let assertionType = parameters.string("client_assertion_type")
        switch settings.authMethod {
        case .none:
            return (clientId, settings)
        case .clientSecretPost, .clientSecretBasic:
            let presented: String?
            if settings.authMethod == .clientSecretPost {
                presented = basic == nil && assertion == nil && assertionType == nil ? bodySecret : nil
            } else {
                presented = bodySecret == nil && assertion == nil && assertionType == nil ? basic?.clientSecret : nil
            }
            guard let presented, let expected = settings.secretDigest,
                  constantTimeEquals(Array(SHA256.hash(data: Data(presented.utf8))), expected)
            else { throw Self.unauthorizedClient(basic: basic != nil) }
            return (clientId, settings)
        case .privateKeyJWT:
            guard basic == nil, bodySecret == nil else {
                throw Self.invalidClient("The client authenticates with private_key_jwt; send no client secret.")
            }
            guard let assertion else { throw Self.invalidClient("Missing client_assertion (the client authenticates with private_key_jwt).") }
            guard assertionType == Auth0ClientAssertion.assertionType else {
                throw Self.invalidClient("client_assertion_type must be \(Auth0ClientAssertion.assertionType).")
            }
            let at = now
            let verified: Auth0ClientAssertion.Verified
            do {
                verified = try Auth0ClientAssertion.verify(
                    assertion, clientId: clientId, audience: await issuer(for: request), credentials: settings.credentials, now: at
                )
            } catch {
                throw Self.invalidClient(error.description)
            }
            let fresh = await state.update(Auth0Tenant.key) { tenant in
                tenant.admitAssertion(clientId: clientId, jti: verified.jti, expiresAt: verified.expiresAt, now: at)
            }
            guard fresh else { throw Self.invalidClient("The client assertion has already been used (jti).") }
            return (clientId, settings)
        }
    }

    // MARK: - POST /oauth/par

    /// How long a `request_uri` of `/oauth/par` is accepted (Auth0 answers `expires_in: 30`).
    static let pushedRequestLifetime: TimeInterval = 30
    /// The prefix of every `request_uri` (RFC 9126, section 2.2).
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"
    /// Body parameters that authenticate the client and are not part of the pushed request.
    static let credentialParameters: Set<String> = ["client_secret", "client_assertion", "client_assertion_type"]

    /// `POST /oauth/par` (RFC 9126): the authorize parameters plus client authentication
    /// (``authenticateClient(_:_:)``; only a confidential client may push, a public one is
    /// `401 invalid_client`). A `request_uri` in the body is `400 invalid_request`; the rest is
    /// checked as `/authorize` checks its query (``validatedAuthorize(_:clientId:tenant:)``), every
    /// refusal a JSON `400 {error, error_description}` here instead of a redirect. → `201
    /// {request_uri: "urn:ietf:params:oauth:request_uri:<random>", expires_in: 30}`; `/authorize`
    /// then takes `client_id` and that `request_uri` once, within 30 s of the emulator's clock.
    func pushAuthorizationRequest(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let (clientId, settings) = try await authenticateClient(request, parameters)
        guard settings?.isConfidential == true else {
            throw Self.invalidClient("Pushed authorization requests need client authentication (a confidential client).")
        }
        guard parameters["request_uri"] == nil else {
            throw Auth0Failure.invalidRequest("request_uri is not allowed in a pushed authorization request.")
        }
        var pushed = parameters
        for name in Self.credentialParameters { pushed.values[name] = nil }
        pushed.values["client_id"] = .string(clientId)
        let tenant = await state.get(Auth0Tenant.key)
        do {
            _ = try validatedAuthorize(pushed, clientId: clientId, tenant: tenant)
        } catch {
            throw Auth0Failure.oauth(error.error, error.description, status: .badRequest)
        }
        let requestURI = Self.requestURIPrefix + randomToken()
        let at = now
        let entry = Auth0PushedRequest(clientId: clientId, parameters: pushed, expiresAt: at.addingTimeInterval(Self.pushedRequestLifetime))
        await state.update(Auth0Tenant.key) { tenant in tenant.push(entry, digest: Auth0Tenant.digest(requestURI), now: at) }
        return EmulatorResponse.json(
            ["request_uri": .string(requestURI), "expires_in": .number(Self.pushedRequestLifetime)],
            status: .created, headers: [.cacheControl: "no-store"]
        )
    }

    /// Spends the pushed request of `requestURI` for `clientId`: nil when it is unknown, expired,
    /// already used or pushed by another client (a request pushed by another client stays).
    func takePushedRequest(_ requestURI: String, clientId: String) async -> Auth0PushedRequest? {
        guard requestURI.hasPrefix(Self.requestURIPrefix), requestURI.utf8.count <= 256 else { return nil }
        let digest = Auth0Tenant.digest(requestURI)
        let at = now
        return await state.update(Auth0Tenant.key) { tenant -> Auth0PushedRequest? in
            guard let entry = tenant.pushedRequests[digest], entry.clientId == clientId else { return nil }
            tenant.pushedRequests[digest] = nil
            return entry.expiresAt > at ? entry : nil
        }
    }

    // MARK: - Registration

    /// The confidential-client fields of `POST /auth0/__emulator/clients`, validated:
    /// `token_endpoint_auth_method` (`none` default, `client_secret_post`, `client_secret_basic`,
    /// `private_key_jwt`), `client_secret` (32…512 printable ASCII characters; required with and
    /// only allowed with the secret methods), `client_authentication_methods: {private_key_jwt:
    /// {credentials: [{credential_type: "public_key", pem, alg, kid?}]}}` (required with and only
    /// allowed with `private_key_jwt`; 1…``maximumCredentials`` credentials, each an RSA public key
    /// of 2048…8192 bits in PEM, `alg` one of `RS256`, `RS384`, `PS256`, distinct `kid`s of 1…256
    /// characters) and `require_pushed_authorization_requests` (a boolean; true only for a
    /// confidential client). Each refusal is a `400 invalid_request` naming the field.
    static func confidentialSettings(_ parameters: Auth0Parameters, into settings: inout Auth0ClientSettings) throws {
        if let value = parameters["token_endpoint_auth_method"], value != .null {
            guard let text = value.stringValue, let method = Auth0TokenEndpointAuthMethod(rawValue: text) else {
                throw Auth0Failure.invalidRequest(
                    "token_endpoint_auth_method must be one of none, client_secret_post, client_secret_basic, private_key_jwt."
                )
            }
            settings.authMethod = method
        }
        let usesSecret = settings.authMethod == .clientSecretPost || settings.authMethod == .clientSecretBasic
        if let value = parameters["client_secret"], value != .null {
            guard usesSecret else {
                throw Auth0Failure.invalidRequest("client_secret is only for client_secret_post and client_secret_basic.")
            }
            guard let secret = value.stringValue, (32...512).contains(secret.utf8.count),
                  secret.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                throw Auth0Failure.invalidRequest("client_secret must be 32 to 512 printable ASCII characters.")
            }
            settings.secretDigest = Array(SHA256.hash(data: Data(secret.utf8)))
        } else if usesSecret {
            throw Auth0Failure.invalidRequest("client_secret is required for \(settings.authMethod.rawValue).")
        }
        if let value = parameters["client_authentication_methods"], value != .null {
            guard settings.authMethod == .privateKeyJWT else {
                throw Auth0Failure.invalidRequest("client_authentication_methods is only for private_key_jwt.")
            }
            settings.credentials = try credentials(in: value)
        } else if settings.authMethod == .privateKeyJWT {
            throw Auth0Failure.invalidRequest("client_authentication_methods.private_key_jwt.credentials is required for private_key_jwt.")
        }
        if let value = parameters["require_pushed_authorization_requests"], value != .null {
            guard case .bool(let flag) = value else {
                throw Auth0Failure.invalidRequest("require_pushed_authorization_requests must be a boolean.")
            }
            guard !flag || settings.isConfidential else {
                throw Auth0Failure.invalidRequest(
                    "require_pushed_authorization_requests needs a confidential client (a token_endpoint_auth_method other than none)."
                )
            }
            settings.requirePushedAuthorizationRequests = flag
        }
    }

    /// The most `private_key_jwt` credentials a client may register.
    static let maximumCredentials = 5

    /// The credentials of `client_authentication_methods`.
    private static func credentials(in value: JSONValue) throws -> [Auth0ClientCredential] {
        guard let methods = value.objectValue, methods.keys.allSatisfy({ $0 == "private_key_jwt" }),
              let list = methods["private_key_jwt"]?.objectValue?["credentials"]?.arrayValue,
              (1...maximumCredentials).contains(list.count)
        else {
            throw Auth0Failure.invalidRequest(
                "client_authentication_methods must be {\"private_key_jwt\": {\"credentials\": [1 to \(maximumCredentials) credentials]}}."
            )
        }
        var result: [Auth0ClientCredential] = []
        for (index, item) in list.enumerated() {
            let name = "client_authentication_methods.private_key_jwt.credentials[\(index)]"
            guard let object = item.objectValue else { throw Auth0Failure.invalidRequest("\(name) must be an object.") }
            guard object["credential_type"]?.stringValue == "public_key" else {
                throw Auth0Failure.invalidRequest("\(name).credential_type must be public_key.")
            }
            guard let alg = object["alg"]?.stringValue, Auth0ClientAssertion.algorithms.contains(alg) else {
                throw Auth0Failure.invalidRequest("\(name).alg must be one of RS256, RS384, PS256.")
            }
            guard let pem = object["pem"]?.stringValue, pem.utf8.count <= 16_384,
                  let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem), (2048...8192).contains(key.keySizeInBits)
            else {
                throw Auth0Failure.invalidRequest("\(name).pem must be the PEM of an RSA public key of 2048 to 8192 bits.")
            }
            var kid: String?
            if let value = object["kid"], value != .null {
                guard let text = value.stringValue, (1...256).contains(text.utf8.count) else {
                    throw Auth0Failure.invalidRequest("\(name).kid must be a string of 1 to 256 characters.")
                }
                guard !result.contains(where: { $0.kid == text }) else {
                    throw Auth0Failure.invalidRequest("\(name).kid is used by another credential.")
                }
                kid = text
            }
            result.append(Auth0ClientCredential(key: key, algorithm: alg, kid: kid))
        }
        return result
    }

    /// The confidential-client fields of a registration reply (never the secret or the keys).
    static func confidentialJSON(_ settings: Auth0ClientSettings) -> [String: JSONValue] {
        var body: [String: JSONValue] = [
            "token_endpoint_auth_method": .string(settings.authMethod.rawValue),
            "require_pushed_authorization_requests": .bool(settings.requirePushedAuthorizationRequests),
        ]
        if !settings.credentials.isEmpty {
            let credentials: [JSONValue] = settings.credentials.map { credential in
                var item: [String: JSONValue] = ["credential_type": "public_key", "alg": .string(credential.algorithm)]
                if let kid = credential.kid { item["kid"] = .string(kid) }
                return .object(item)
            }
            body["client_authentication_methods"] = ["private_key_jwt": ["credentials": .array(credentials)]]
        }
        return body
    }
}
