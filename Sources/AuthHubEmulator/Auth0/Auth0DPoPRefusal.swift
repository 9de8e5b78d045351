import AuthHub
import HTTPTypes

/// Why the emulated tenant refused a request's DPoP proof or DPoP-bound access token, before it is
/// rendered in the shape of the endpoint that refused it (RFC 9449, sections 5, 7.1, 8 and 9).
///
/// - At the token endpoint (``tokenEndpointFailure``): `400 {"error":"invalid_dpop_proof" |
///   "use_dpop_nonce", "error_description":…}`, the nonce refusal with a `DPoP-Nonce` header.
/// - At a resource (``resourceFailure(render:)``): `401` with `WWW-Authenticate: DPoP
///   error="…", error_description="…", algs="ES256"` (and `DPoP-Nonce` for `use_dpop_nonce`), the
///   body in the API's own error shape.
enum Auth0DPoPRefusal: Error, Sendable, Equatable {
    /// The proof is missing, malformed, wrongly signed, for another request, too old or replayed:
    /// `invalid_dpop_proof`.
    case invalidProof(String)
    /// The proof lacks the tenant's current nonce (or carries a stale one): `use_dpop_nonce`, with
    /// the current nonce to put in the next proof.
    case useNonce(String)
    /// At a resource: the access token and the presentation disagree (a bound token sent as
    /// `Bearer`, an unbound token sent as `DPoP`, a proof of another key): `invalid_token`.
    case invalidToken(String)

    /// The `DPoP-Nonce` response header.
    static let nonceHeader = HTTPField.Name.constant("DPoP-Nonce")
    /// The `DPoP` request header.
    static let proofHeader = HTTPField.Name.constant("DPoP")

    /// The OAuth error code.
    var error: String {
        switch self {
        case .invalidProof: "invalid_dpop_proof"
        case .useNonce: "use_dpop_nonce"
        case .invalidToken: "invalid_token"
        }
    }

    /// The error description (fixed text of the emulator's, never request data, so that it can go
    /// into a quoted string of `WWW-Authenticate` as it is).
    var description: String {
        switch self {
        case .invalidProof(let text), .invalidToken(let text): text
        case .useNonce: "Authorization server requires nonce in DPoP proof"
        }
    }

    /// The nonce to send in `DPoP-Nonce`, for ``useNonce(_:)``.
    var nonce: String? {
        if case .useNonce(let nonce) = self { return nonce }
        return nil
    }

    /// The refusal as the token endpoint answers it: `400` `{error, error_description}`, and for
    /// ``useNonce(_:)`` the `DPoP-Nonce` header (RFC 9449, section 8). ``invalidToken(_:)`` does not
    /// arise there; it is rendered like an invalid proof.
    var tokenEndpointFailure: Auth0Failure {
        let code = if case .useNonce = self { error } else { "invalid_dpop_proof" }
        var failure = Auth0Failure.oauth(code, description, status: .badRequest)
        if let nonce { failure.headers[Self.nonceHeader] = nonce }
        return failure
    }

    /// The refusal as a resource answers it: the API's own 401 body from `render(error,
    /// description)`, with the `WWW-Authenticate: DPoP` challenge (RFC 9449, section 7.1) in place
    /// of the body's own challenge, and `DPoP-Nonce` for ``useNonce(_:)`` (section 9).
    func resourceFailure(render: (_ error: String, _ description: String) -> Auth0Failure) -> Auth0Failure {
        var failure = render(error, resourceDescription)
        failure.status = .unauthorized
        failure.headers[.wwwAuthenticate] =
            "DPoP error=\"\(error)\", error_description=\"\(resourceDescription)\", algs=\"\(Auth0DPoPProof.algorithm)\""
        if let nonce { failure.headers[Self.nonceHeader] = nonce }
        return failure
    }

    /// ``description``, with the resource server's wording for the nonce refusal.
    private var resourceDescription: String {
        if case .useNonce = self { return "Resource server requires nonce in DPoP proof" }
        return description
    }
}
