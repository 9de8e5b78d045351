import AuthHub
import Foundation

/// The body of an OAuth error reply: `{"error", "error_description"}`, with the `code` and
/// `description`/`message` spellings some providers use instead.
///
/// Error bodies are open by nature: every member is optional and a member that is not a string
/// reads as absent, so that a provider's odd error never hides the status behind a decoding error.
package struct OAuthErrorBody: Decodable, Sendable {
    package var error: String?
    package var code: String?
    package var errorDescription: String?
    package var description: String?
    package var message: String?

    enum CodingKeys: String, CodingKey {
        case error, code, errorDescription = "error_description", description, message
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func string(_ key: CodingKeys) -> String? { (try? container.decodeIfPresent(String.self, forKey: key)) ?? nil }
        error = string(.error)
        code = string(.code)
        errorDescription = string(.errorDescription)
        description = string(.description)
        message = string(.message)
    }

    /// The body of `response`, or nil when it is not a JSON object.
    package static func decode(_ response: HTTPReply) -> OAuthErrorBody? {
        try? JSONDecoder().decode(OAuthErrorBody.self, from: response.body)
    }
}
