import AuthHub
import Foundation

/// A coding key by name, for Firebase replies that spell one member several ways (`id_token` or
/// `idToken`) or that are read member by member.
struct FirebaseWireKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
