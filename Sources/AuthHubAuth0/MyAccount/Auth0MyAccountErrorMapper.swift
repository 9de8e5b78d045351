import AuthHub
import Foundation

/// Maps My Account API errors (<doc:Auth0Errors>: “My Account errors”, an RFC 7807 body `{type, status, title, detail,
/// validation_errors?}`) to ``AuthError``: the vendor code is `type` (else `code`), the message
/// `detail` (else `title`, else `description`), and `validation_errors` are kept in
/// ``AuthError/details`` as `validation.<field or pointer>`.
///
/// Two refusals get their own canonical code, recognised from the problem text because <doc:Auth0Errors>: “My Account errors” has no
/// machine-readable sub-code for them: a 403 about a missing scope ("Insufficient scope; expected
/// …") is ``AuthErrorCode/insufficientScope`` with `details["requiredScope"]`, and a 400/403 about a
/// wrong one-time code at `/verify` (the text names `otp`) is ``AuthErrorCode/invalidMFACode``.
@_spi(Internals) public struct Auth0MyAccountErrorMapper: ErrorMapper {
    public init() {}

    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        let body = (try? JSONValue.parse(response.body))?.objectValue ?? [:]
        let code = body["type"]?.stringValue ?? body["code"]?.stringValue
        let message = body["detail"]?.stringValue ?? body["title"]?.stringValue ?? body["description"]?.stringValue
        var details: [String: String] = [:]
        if let title = body["title"]?.stringValue { details["title"] = title }
        for (index, problem) in (body["validation_errors"]?.arrayValue ?? []).enumerated() {
            let name = problem["field"]?.stringValue ?? problem["pointer"]?.stringValue ?? String(index)
            details["validation.\(name)"] = problem["detail"]?.stringValue ?? ""
        }
        let text = [code, body["title"]?.stringValue, body["detail"]?.stringValue].compactMap { $0 }.joined(separator: " ").lowercased()
        let canonical: AuthErrorCode
        switch response.status {
        case 401: canonical = .invalidToken
        case 403 where text.contains("scope"):
            canonical = .insufficientScope
            if let scope = Self.expectedScope(in: body["detail"]?.stringValue ?? "") { details["requiredScope"] = scope }
        case 400 where text.contains("otp"), 403 where text.contains("otp"): canonical = .invalidMFACode
        case 403: canonical = .accessDenied
        case 404, 400, 422: canonical = .invalidRequest
        case 409: canonical = .conflict
        default: canonical = StatusErrorMapper.code(forStatus: response.status)
        }
        return AuthError(canonical, message: message, provider: provider, providerCode: code, statusCode: response.status,
                         retryAfter: response.headerFields.retryAfter(), details: details)
    }

    /// The scope named after "expected" in a refusal like "Insufficient scope; expected read:me:factors.".
    static func expectedScope(in detail: String) -> String? {
        guard let range = detail.range(of: "expected", options: .caseInsensitive) else { return nil }
        let scope = detail[range.upperBound...].split(separator: " ").first
            .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ".,;")) }
        return scope?.contains(":") == true ? scope : nil
    }
}
