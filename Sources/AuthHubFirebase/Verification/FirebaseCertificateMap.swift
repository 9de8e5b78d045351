import AuthHub

/// Google's X.509 key document for Firebase ID tokens: `{"<kid>": "<PEM certificate>", …}`. The
/// document must be an object; members whose value is not a string are skipped.
struct FirebaseCertificateMap: Decodable, Sendable {
    /// PEM certificates by key id.
    var certificates: [String: String]

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: FirebaseWireKey.self)
        var certificates: [String: String] = [:]
        for key in c.allKeys {
            if let pem = c.looseString(key) { certificates[key.stringValue] = pem }
        }
        self.certificates = certificates
    }
}
