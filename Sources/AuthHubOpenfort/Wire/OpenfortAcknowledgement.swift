import AuthHub

/// The reply of calls that only acknowledge: `{success}`, `{status}`, `{status, message}` — read
/// tolerantly (every member optional), as AuthHub only reports them.
struct OpenfortAcknowledgement: Codable, Sendable {
    var success: Bool?
    var status: Bool?
    var message: String?

    enum CodingKeys: String, CodingKey { case success, status, message }

    init(success: Bool? = nil, status: Bool? = nil, message: String? = nil) {
        self.success = success
        self.status = status
        self.message = message
    }

    /// Reads any JSON: a reply that is not an object acknowledges nothing more (it is not used).
    init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: CodingKeys.self) else {
            self.init()
            return
        }
        self.init(success: c.looseBool(.success), status: c.looseBool(.status), message: c.looseString(.message))
    }
}
