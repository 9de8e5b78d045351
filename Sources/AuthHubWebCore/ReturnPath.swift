import Foundation

/// Return paths after sign-in, checked against open redirects: only a path on this site.
enum ReturnPath {
    /// `path` when it is a local absolute path (`/`, `/profile?tab=1`): not scheme-relative (`//evil`),
    /// no scheme, no backslash (browsers read `/\evil` as `//evil`), no control characters, at most
    /// 1 KiB; nil otherwise.
    static func validated(_ path: String) -> String? {
        guard path.utf8.count <= 1024, path.hasPrefix("/"), !path.hasPrefix("//"),
              !path.contains("\\"), !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              let components = URLComponents(string: path), components.scheme == nil, components.host == nil else { return nil }
        return path
    }
}
