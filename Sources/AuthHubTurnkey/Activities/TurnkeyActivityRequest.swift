import AuthHub

/// The activity envelope of `POST /public/v1/submit/<name>`: `{type, timestampMs, organizationId,
/// parameters}`, `timestampMs` milliseconds since 1970 as a string.
public struct TurnkeyActivityRequest<Parameters: Encodable & Sendable>: Encodable, Sendable {
    /// `ACTIVITY_TYPE_…`.
    public var type: String
    /// Milliseconds since 1970, as a string.
    public var timestampMs: String
    /// The organization the activity runs in.
    public var organizationId: String
    /// The activity's parameters.
    public var parameters: Parameters

    /// Creates an envelope.
    public init(type: String, timestampMs: String, organizationId: String, parameters: Parameters) {
        self.type = type
        self.timestampMs = timestampMs
        self.organizationId = organizationId
        self.parameters = parameters
    }
}
