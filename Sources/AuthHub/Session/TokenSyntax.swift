import Foundation

/// The characters a token may hold before AuthHub stores it or hands it out.
///
/// Tokens end up in HTTP header fields (`Authorization: Bearer <token>`), on a terminal
/// (`authhub token`) and in shell substitutions (`curl -H "Authorization: Bearer $(authhub token)"`).
/// A token with a CR or LF would add a header of the server's choosing; a control byte would act on
/// the terminal. RFC 6749 (appendix A: `access_token`, `refresh_token` are `1*VSCHAR`) and RFC 6750
/// (`b64token`) allow only visible ASCII; a space, though a VSCHAR, would split the header value, so
/// it is refused too. A reply whose token breaks this is malformed: refused before it is stored.
public enum TokenSyntax {
    /// True when every character of `token` is visible ASCII (`!` … `~`, 0x21–0x7E). The empty
    /// string passes: whether a token must be present is the wire model's decision.
    public static func isVisibleASCII(_ token: String) -> Bool {
        token.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// True when `tokenType` is an HTTP token (RFC 9110 `tchar`s, at least one): `Bearer`, `DPoP`, `MAC`.
    public static func isTokenType(_ tokenType: String) -> Bool {
        !tokenType.isEmpty && tokenType.utf8.allSatisfy(isTChar)
    }

    private static func isTChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension Session {
    /// Checks that every token of this session is visible ASCII and its token type an HTTP token
    /// (see ``TokenSyntax``).
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the provider, the operation and the field
    ///   (`details["field"]`: `accessToken`, `refreshToken`, `idToken` or `tokenType`); the message
    ///   quotes no token.
    public func checkTokenSyntax(operation: AuthOperation) throws {
        func refuse(_ field: String, _ what: String) -> AuthError {
            AuthError(.invalidRequest,
                      message: "The \(operation) reply from '\(providerID)' has \(what) in the field '\(field)'; it was not stored.",
                      provider: providerID,
                      details: ["operation": operation.rawValue, "reason": "invalidValue", "field": field])
        }
        let tokens: [(String, Secret<String>?)] = [("accessToken", accessToken), ("refreshToken", refreshToken), ("idToken", idToken)]
        for (field, token) in tokens {
            if let token, !TokenSyntax.isVisibleASCII(token.revealed()) {
                throw refuse(field, "a token with characters other than visible ASCII")
            }
        }
        guard TokenSyntax.isTokenType(tokenType) else { throw refuse("tokenType", "a token type that is not an HTTP token") }
    }
}
