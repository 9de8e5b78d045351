import AuthHub
import Foundation

/// A reply whose point is the URL to open (v2 `sign-in/social` redirect flow, v1 `oauth/init`):
/// `url` is required and must be an absolute URL.
struct OpenfortRedirectReply: Codable, Sendable {
    var url: URL

    enum CodingKeys: String, CodingKey { case url }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let url = URL(string: try c.decode(String.self, forKey: .url)), url.scheme != nil else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: "not an absolute URL")
        }
        self.url = url
    }
}
