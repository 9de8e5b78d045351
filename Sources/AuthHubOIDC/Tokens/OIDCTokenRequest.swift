import AuthHub

/// The body of a token endpoint request: the authorization code exchange (with PKCE) or the
/// refresh grant. Sent form-encoded (RFC 6749) in the order of ``fields`` or as JSON (keys sorted).
struct OIDCTokenRequest: Encodable, Sendable {
    /// `client_id`.
    var clientID: String
    /// `grant_type`.
    var grantType: String
    /// `code` (code exchange).
    var code: String?
    /// `code_verifier` (code exchange).
    var codeVerifier: String?
    /// `redirect_uri` (code exchange).
    var redirectURI: String?
    /// `refresh_token` (refresh).
    var refreshToken: String?
    /// `scope` (refresh, when a narrower one is asked for).
    var scope: String?
    /// `device_code` (device authorization grant, RFC 8628).
    var deviceCode: String?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id", grantType = "grant_type", code, codeVerifier = "code_verifier"
        case redirectURI = "redirect_uri", refreshToken = "refresh_token", scope, deviceCode = "device_code"
    }

    /// The fields in the order they are form-encoded; absent ones left out.
    var fields: [(String, String)] {
        let all: [(CodingKeys, String?)] = [(.clientID, clientID), (.grantType, grantType), (.code, code),
                                            (.codeVerifier, codeVerifier), (.redirectURI, redirectURI),
                                            (.refreshToken, refreshToken), (.scope, scope), (.deviceCode, deviceCode)]
        return all.compactMap { key, value in value.map { (key.rawValue, $0) } }
    }
}
