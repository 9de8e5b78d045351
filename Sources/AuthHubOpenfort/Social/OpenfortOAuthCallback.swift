import AuthHub
import Foundation

/// What Openfort appends to the app's redirect URL at the end of an OAuth sign-in (<doc:OpenfortEndpoints>: “OAuth redirect”):
/// `?access_token=<session token>&user_id=<user id>`, or `?error=<CODE>` on failure.
///
/// Parameters are read from the query and, when absent there, from the fragment (some redirect
/// handlers move them). Values are URL-decoded once and otherwise kept exactly (the token may be
/// the signed `<token>.<signature>` form). The legacy v1 callback's `refresh_token` and
/// `player_id` (<doc:OpenfortEndpoints>: “Legacy v1”) are read too: `player_id` stands in for `user_id`.
public struct OpenfortOAuthCallback: Sendable, Hashable {
    /// The session token (`access_token`).
    public var token: Secret<String>
    /// The user id (`user_id`, or v1 `player_id`); nil when the redirect carries none — a
    /// get-session call then supplies it.
    public var userID: String?
    /// The v1 refresh token, if any.
    public var refreshToken: Secret<String>?

    /// Creates a value.
    public init(token: Secret<String>, userID: String?, refreshToken: Secret<String>? = nil) {
        self.token = token
        self.userID = userID
        self.refreshToken = refreshToken
    }

    /// Parses a redirect URL.
    /// - Parameter provider: the provider id errors are attributed to.
    /// - Throws: for `?error=`: the code's mapping (the error mapper's `codes`, e.g.
    ///   `access_denied` → ``AuthErrorCode/accessDenied``, `INVALID_TOKEN` →
    ///   ``AuthErrorCode/invalidToken``; an unknown code → ``AuthErrorCode/accessDenied``) with the
    ///   code as ``AuthError/providerCode``; ``AuthErrorCode/invalidRequest`` for a URL that cannot
    ///   be parsed or has no `access_token`.
    public static func parse(_ callbackURL: String, provider: String) throws -> OpenfortOAuthCallback {
        guard let components = URLComponents(string: callbackURL), components.scheme != nil else {
            throw AuthError(.invalidRequest, message: "The OAuth callback URL could not be parsed.", provider: provider)
        }
        var parameters: [String: String] = [:]
        if let fragment = components.percentEncodedFragment {
            for (name, value) in decodePairs(fragment) where parameters[name] == nil { parameters[name] = value }
        }
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }

        if let error = parameters["error"], !error.isEmpty {
            let code = OpenfortErrorMapper.code(for: error) ?? .accessDenied
            let description = parameters["error_description"].flatMap { $0.isEmpty ? nil : $0 }
            throw AuthError(code, message: description ?? "The sign-in was not completed (\(error)).", provider: provider,
                            providerCode: error)
        }
        guard let token = parameters["access_token"], !token.isEmpty else {
            throw AuthError(.invalidRequest, message: "The OAuth callback URL carries no access_token.", provider: provider)
        }
        let userID = [parameters["user_id"], parameters["player_id"]].compactMap { $0 }.first { !$0.isEmpty }
        let refresh = parameters["refresh_token"].flatMap { $0.isEmpty ? nil : Secret($0) }
        return OpenfortOAuthCallback(token: Secret(token), userID: userID, refreshToken: refresh)
    }

    /// `a=1&b=2` percent-decoded (a `+` is kept: tokens are not form-encoded).
    static func decodePairs(_ text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { String(s).removingPercentEncoding ?? String(s) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}
