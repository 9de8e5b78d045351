import AuthHub

/// An array element that is kept when it decodes and dropped (nil) when it does not — for lists
/// read tolerantly (key sets, where one unusable key must not hide the others).
struct FirebaseLossy<Value: Decodable & Sendable>: Decodable, Sendable {
    var value: Value?

    init(from decoder: any Decoder) throws {
        value = try? Value(from: decoder)
    }
}
