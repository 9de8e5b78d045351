import AuthHub

/// `createAuthenticatorsResult` of a completed `ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`:
/// `{authenticatorIds: […]}`, the new authenticators' ids, checked: at most 100, each 1 to 256
/// bytes (a missing list is empty).
struct TurnkeyCreateAuthenticatorsResult: TurnkeyActivityResult {
    static let resultKeys = ["createAuthenticatorsResult"]
    var authenticatorIds: [String]

    enum CodingKeys: String, CodingKey { case authenticatorIds }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let ids = try c.decodeIfPresent([String].self, forKey: .authenticatorIds) ?? []
        guard ids.count <= 100, ids.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }) else {
            throw DecodingError.dataCorruptedError(forKey: .authenticatorIds, in: c,
                                                   debugDescription: "more than 100 ids, or one empty or longer than 256 bytes")
        }
        authenticatorIds = ids
    }
}
