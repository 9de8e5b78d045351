import AuthHub

/// A reply carrying an activity (`/public/v1/submit/*`, `get_activity`): `{activity}`.
struct TurnkeyActivityReply: Decodable, Sendable {
    var activity: TurnkeyActivity
}
