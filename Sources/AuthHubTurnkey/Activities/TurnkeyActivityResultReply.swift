import AuthHub

/// The typed result of a completed activity's reply: `activity.result.<name>`.
struct TurnkeyActivityResultReply<Result: TurnkeyActivityResult>: Decodable, Sendable {
    var result: Result

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: TurnkeyWireKey.self)
        let activity = try c.nestedContainer(keyedBy: TurnkeyWireKey.self, forKey: TurnkeyWireKey("activity"))
        let results = try activity.nestedContainer(keyedBy: TurnkeyWireKey.self, forKey: TurnkeyWireKey("result"))
        let present = Result.resultKeys.map(TurnkeyWireKey.init).first { results.contains($0) && (try? results.decodeNil(forKey: $0)) == false }
        guard let key = present else {
            throw DecodingError.keyNotFound(TurnkeyWireKey(Result.resultKeys.first ?? "result"),
                                            .init(codingPath: results.codingPath, debugDescription: "missing"))
        }
        result = try results.decode(Result.self, forKey: key)
    }
}
