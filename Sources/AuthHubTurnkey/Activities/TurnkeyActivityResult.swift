import AuthHub

/// The typed result of a completed activity, found in `activity.result` under the first of
/// ``resultKeys`` that is present.
protocol TurnkeyActivityResult: Decodable, Sendable {
    /// The names the result may have in `activity.result`, preferred first.
    static var resultKeys: [String] { get }
}
