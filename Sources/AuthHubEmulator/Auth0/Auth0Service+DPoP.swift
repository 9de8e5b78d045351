import AuthHub
import Foundation
import HTTPTypes
import Hummingbird

/// An access token as a resource request presents it: `Authorization: Bearer <token>` or
/// `Authorization: DPoP <token>` (scheme names case-insensitive).
struct Auth0PresentedToken: Sendable, Equatable {
    /// The access token.
    var token: String
    /// Whether it came with the `DPoP` scheme.
    var isDPoP: Bool
}

extension Request {
    /// The access token of the `Authorization` header with the `Bearer` or the `DPoP` scheme.
    var presentedAccessToken: Auth0PresentedToken? {
        guard let header = headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let scheme = parts[0].lowercased()
        guard scheme == "bearer" || scheme == "dpop" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : Auth0PresentedToken(token: token, isDPoP: scheme == "dpop")
    }
}

extension Auth0Service {
    // MARK: - DPoP (RFC 9449)

    /// The request's DPoP proof, verified (``Auth0DPoPProof``) and admitted by the tenant (nonce,
    /// replay: ``Auth0DPoPState``); nil when the request has no `DPoP` header.
    /// - Parameter accessToken: the access token the proof goes with at a resource (its `ath` is
    ///   checked), nil at the token endpoint.
    /// - Throws: ``Auth0DPoPRefusal`` for more than one `DPoP` header, a proof that fails a check,
    ///   a missing or stale nonce in nonce mode, or a replayed proof.
    func dpopProof(of request: Request, accessToken: String?) async throws(Auth0DPoPRefusal) -> Auth0DPoPProof? {
        let values = request.headers[values: Auth0DPoPRefusal.proofHeader]
        guard !values.isEmpty else { return nil }
        guard values.count == 1, let compact = values.first else { throw .invalidProof("Send exactly one DPoP header.") }
        guard let target = Auth0DPoPTarget(request: request, baseURL: await state.baseURL) else {
            throw .invalidProof("The request has no usable Host header to check the DPoP proof's htu against.")
        }
        let checkedAt = now
        let proof = try Auth0DPoPProof.verify(
            compact, method: request.method.rawValue, target: target, accessToken: accessToken, now: checkedAt
        )
        let refusal = await state.update(Auth0Tenant.key) { tenant in tenant.dpop.admit(proof, now: checkedAt) }
        if let refusal { throw refusal }
        return proof
    }

    /// ``dpopProof(of:accessToken:)`` at the token endpoint: a refusal is answered
    /// `400 invalid_dpop_proof` or `400 use_dpop_nonce` with `DPoP-Nonce`
    /// (``Auth0DPoPRefusal/tokenEndpointFailure``).
    func tokenRequestProof(_ request: Request) async throws -> Auth0DPoPProof? {
        do {
            return try await dpopProof(of: request, accessToken: nil)
        } catch {
            throw error.tokenEndpointFailure
        }
    }

    /// Checks how a resource request presented a known, unexpired access token.
    ///
    /// - An unbound token (issued without DPoP) must come as `Bearer` (a `DPoP` header beside it is
    ///   ignored); as `DPoP` it is refused with `invalid_token`.
    /// - A DPoP-bound token must come as `DPoP` (as `Bearer`: `invalid_token`, RFC 9449, section 7.2),
    ///   with a proof (`invalid_dpop_proof` when missing or failing a check, `ath` included) whose
    ///   key has the token's thumbprint (`invalid_token` "Invalid DPoP key binding" otherwise), and,
    ///   in nonce mode, the current nonce (`use_dpop_nonce`; checked before the key binding, so a
    ///   nonce challenge comes first).
    /// - Throws: ``Auth0DPoPRefusal``, for the caller to render in its API's shape with
    ///   ``Auth0DPoPRefusal/resourceFailure(render:)``.
    func checkPresentation(_ presented: Auth0PresentedToken, of access: Auth0AccessGrant, request: Request) async throws(Auth0DPoPRefusal) {
        guard let jkt = access.grant.dpopJKT else {
            if presented.isDPoP { throw .invalidToken("The access token is not DPoP-bound; send it with the Bearer scheme.") }
            return
        }
        guard presented.isDPoP else {
            throw .invalidToken("The access token is DPoP-bound; send it with the DPoP scheme and a DPoP proof.")
        }
        guard let proof = try await dpopProof(of: request, accessToken: presented.token) else {
            throw .invalidProof("Missing DPoP proof.")
        }
        guard proof.thumbprint == jkt else { throw .invalidToken("Invalid DPoP key binding") }
    }

    /// Checks that a token request may continue a grant bound to the key with thumbprint
    /// `required` (a refresh token's family, an authorization code's `dpop_jkt`): nil when it may.
    /// - Returns: `400 invalid_dpop_proof` when the request has no proof (`missingProof`: the
    ///   description), `400 invalid_grant` when the proof's key is another (`mismatch`).
    static func bindingRefusal(required: String?, proof: Auth0DPoPProof?, missingProof: String, mismatch: String) -> Auth0Failure? {
        guard let required else { return nil }
        guard let proof else { return .oauth("invalid_dpop_proof", missingProof, status: .badRequest) }
        guard proof.thumbprint == required else { return .oauth("invalid_grant", mismatch, status: .badRequest) }
        return nil
    }

    /// `POST /auth0/__emulator/dpop` `{nonce_required?: Bool, rotate_nonce?: Bool}` (emulator-only):
    /// switches nonce mode (``Auth0DPoPState``) and answers `{nonce_required, nonce}` (`nonce` null
    /// while off). `rotate_nonce: true` replaces the current nonce, so the previous one is stale.
    /// A field of another type is `400 invalid_request`. `GET` answers the same without changing it.
    func dpopSettings(_ request: Request) async throws -> Response {
        var required: Bool?
        var rotate = false
        if request.method == .post {
            let parameters = try await Auth0Parameters.body(of: request)
            if let value = parameters["nonce_required"] {
                guard let flag = value.boolValue else { throw Auth0Failure.invalidRequest("nonce_required must be a boolean.") }
                required = flag
            }
            if let value = parameters["rotate_nonce"] {
                guard let flag = value.boolValue else { throw Auth0Failure.invalidRequest("rotate_nonce must be a boolean.") }
                rotate = flag
            }
        }
        let candidate = randomToken(bytes: 16)
        let (newRequired, newRotate) = (required, rotate)
        let settings = await state.update(Auth0Tenant.key) { tenant -> Auth0DPoPState in
            if newRequired != nil || newRotate {
                tenant.dpop.configure(nonceRequired: newRequired ?? tenant.dpop.nonceRequired, rotate: newRotate, candidate: candidate)
            }
            return tenant.dpop
        }
        return EmulatorResponse.json([
            "nonce_required": .bool(settings.nonceRequired),
            "nonce": settings.nonce.map(JSONValue.string) ?? .null,
        ])
    }
}

/// Adds the tenant's current `DPoP-Nonce` to every successful (2xx) reply to a request that carried
/// a `DPoP` header, while nonce mode is on (RFC 9449, sections 8 and 9: the server may hand out a
/// nonce with any reply).
struct Auth0DPoPNonceMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext
    let state: EmulatorState

    func handle(
        _ request: Request,
        context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        guard request.headers[Auth0DPoPRefusal.proofHeader] != nil, (200..<300).contains(response.status.code),
              let nonce = await state.get(Auth0Tenant.key).dpop.nonce
        else { return response }
        response.headers[Auth0DPoPRefusal.nonceHeader] = nonce
        return response
    }
}
