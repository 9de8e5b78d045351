import AuthHub
import Foundation

/// The reply of v2 `link-social`: the URL to open (absent when the server linked at once) and `status`.
struct OpenfortLinkSocialReply: Codable, Sendable {
    var url: URL?
    var status: Bool?

    enum CodingKeys: String, CodingKey { case url, status }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = c.looseString(.url).flatMap(URL.init(string:))
        status = c.looseBool(.status)
    }
}
