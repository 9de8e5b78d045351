import AuthHub

/// An array element that is kept when it decodes and dropped (nil) when it does not — for lists
/// AuthHub reads tolerantly (linked accounts, whose entries only inform).
struct OpenfortLossy<Value: Decodable & Sendable>: Decodable, Sendable {
    var value: Value?

    init(from decoder: any Decoder) throws {
        value = try? Value(from: decoder)
    }
}
