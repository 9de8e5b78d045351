import AuthHub

/// A coding key by name, for Turnkey replies read member by member (activity results keyed by
/// result name).
struct TurnkeyWireKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
