import Foundation

/// Turns a failure to decode a provider's reply into the ``AuthError`` that names the provider, the
/// operation and the field at fault.
///
/// A reply without `access_token` must not become a session with an empty token: wire models declare
/// what is required, and this type says which part of the reply broke that promise — without quoting
/// the reply, which may carry tokens.
package enum ReplyDecodingFailure {
    /// The error for `error` thrown while decoding a reply.
    package static func error(_ error: any Error, provider: String, operation: AuthOperation, statusCode: Int?,
                              emptyBody: Bool) -> AuthError {
        let (reason, field, problem) = describe(error, emptyBody: emptyBody)
        var details = ["operation": operation.rawValue, "reason": reason]
        if let field { details["field"] = field }
        return AuthError(.invalidRequest, message: "The \(operation) reply from '\(provider)' \(problem).", provider: provider,
                         statusCode: statusCode, underlying: error, details: details)
    }

    /// The reason code, the field path (if one is at fault) and the words for the message.
    static func describe(_ error: any Error, emptyBody: Bool) -> (reason: String, field: String?, problem: String) {
        guard let decoding = error as? DecodingError else {
            if let auth = error as? AuthError, let field = auth.details["field"] {
                return ("invalidValue", field, "has an invalid value in the field '\(field)'")
            }
            return ("invalidValue", nil, "could not be read")
        }
        switch decoding {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return ("missingField", field, "lacks the required field '\(field)'")
        case .valueNotFound(_, let context):
            let field = path(context.codingPath)
            return ("nullField", field, "has no value in the required field '\(field)'")
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            let expected = expectedName(type)
            if field.isEmpty { return ("wrongType", nil, "is not \(expected)") }
            return ("wrongType", field, "has the wrong type in the field '\(field)' (expected \(expected))")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if field.isEmpty {
                return ("notJSON", nil, emptyBody ? "is empty" : "is not valid JSON")
            }
            return ("invalidValue", field, "has an invalid value in the field '\(field)'")
        @unknown default:
            return ("invalidValue", nil, "could not be read")
        }
    }

    /// `user.email`, `keys[0].kid`: coding keys joined the way a reader finds them in the JSON.
    static func path(_ keys: [any CodingKey]) -> String {
        var out = ""
        for key in keys {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                out += "[\(index)]"
            } else {
                if !out.isEmpty { out += "." }
                out += key.stringValue
            }
        }
        return out
    }

    private static func expectedName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Double.Type, is UInt.Type, is Int32.Type: "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : (String(describing: type).hasPrefix("Dictionary") ? "an object" : "a JSON object")
        }
    }
}
