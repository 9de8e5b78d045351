import AuthHub

/// Google's JWKS for Firebase ID tokens: `{keys: [{kty, kid, n, e, use, alg}]}`. Read tolerantly:
/// the key set itself must be an object, but a key that is not usable (another type, a missing
/// member, not an object) is skipped, never fatal — the others still verify tokens.
struct FirebaseJSONWebKeySet: Decodable, Sendable {
    /// One entry of `keys[]`, every member optional.
    struct Key: Decodable, Sendable {
        var kty: String?
        var kid: String?
        var n: String?
        var e: String?
        var use: String?
        var alg: String?

        enum CodingKeys: String, CodingKey { case kty, kid, n, e, use, alg }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            kty = c.looseString(.kty)
            kid = c.looseString(.kid)
            n = c.looseString(.n)
            e = c.looseString(.e)
            use = c.looseString(.use)
            alg = c.looseString(.alg)
        }
    }

    /// The usable entries of `keys[]` (entries that are not objects are dropped).
    var keys: [Key]

    enum CodingKeys: String, CodingKey { case keys }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let entries = (try? c.decodeIfPresent([FirebaseLossy<Key>].self, forKey: .keys)) ?? nil
        keys = entries?.compactMap(\.value) ?? []
    }
}
