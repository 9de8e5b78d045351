/// Path helpers shared by the router set-up and the modules.
public enum EmulatorPaths {
    /// The prefix of the emulator's own routes (`/__authhub/health`, `/__authhub/reset`, …).
    public static let reserved = "/__authhub"

    /// Whether `path` equals `prefix` or continues it with a `/` (whole segments only).
    public static func path(_ path: String, isUnder prefix: String) -> Bool {
        path == prefix || path.hasPrefix(prefix.hasSuffix("/") ? prefix : prefix + "/")
    }

    /// Whether two prefixes overlap (one lies under the other).
    static func overlap(_ a: String, _ b: String) -> Bool {
        path(a, isUnder: b) || path(b, isUnder: a)
    }
}
