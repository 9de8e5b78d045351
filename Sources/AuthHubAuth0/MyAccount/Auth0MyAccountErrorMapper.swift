import AuthHub
import Foundation

/// Maps My Account API errors (spec/auth0.md §6.7, an RFC 7807 body `{type, status, title, detail,
/// validation_errors?}`) to ``AuthError``: the vendor code is `type` (else `code`), the message
/// `detail` (else `title`, else `description`), and `validation_errors` are kept in
/// ``AuthError/details`` as `validation.<field or pointer>`.
public struct Auth0MyAccountErrorMapper: ErrorMapper {
    public init() {}

    public func map(_ response: HTTPResponse, provider: String) -> AuthError {
        let body = (try? JSONValue.parse(response.body))?.objectValue ?? [:]
        let code = body["type"]?.stringValue ?? body["code"]?.stringValue
        let message = body["detail"]?.stringValue ?? body["title"]?.stringValue ?? body["description"]?.stringValue
        var details: [String: String] = [:]
        if let title = body["title"]?.stringValue { details["title"] = title }
        for (index, problem) in (body["validation_errors"]?.arrayValue ?? []).enumerated() {
            let name = problem["field"]?.stringValue ?? problem["pointer"]?.stringValue ?? String(index)
            details["validation.\(name)"] = problem["detail"]?.stringValue ?? ""
        }
        let canonical: AuthErrorCode
        switch response.status {
        case 401: canonical = .invalidToken
        case 403: canonical = .accessDenied  // e.g. the token lacks the endpoint's scope
        case 404, 400, 422: canonical = .invalidRequest
        case 409: canonical = .conflict
        default: canonical = StatusErrorMapper.code(forStatus: response.status)
        }
        return AuthError(canonical, message: message, provider: provider, providerCode: code, statusCode: response.status,
                         retryAfter: response.headers.retryAfter(), details: details)
    }
}
