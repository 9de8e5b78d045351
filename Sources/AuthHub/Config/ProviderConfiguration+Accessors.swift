import Foundation

extension ProviderConfiguration {
    /// An `http`/`https` URL field (``ConfigField/Kind/url``), or nil when absent.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the field when it is present but not
    ///   an absolute http(s) URL with a host (the value itself is not shown).
    public func httpURL(_ name: String) throws -> URL? {
        guard let raw = string(name) else { return nil }
        guard ConfigValueFormat.isHTTPURL(raw), let url = URL(string: raw) else {
            throw invalid(name, "must be an absolute http or https URL with a host")
        }
        return url
    }

    /// A required `http`/`https` URL field.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the field when missing or invalid.
    public func requiredHTTPURL(_ name: String) throws -> URL {
        guard let url = try httpURL(name) else { throw invalid(name, "required") }
        return url
    }

    /// An absolute URI field of any scheme (a native redirect URI), or nil when absent.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the field when it is not an absolute URI.
    public func absoluteURI(_ name: String) throws -> URL? {
        guard let raw = string(name) else { return nil }
        guard ConfigValueFormat.isAbsoluteURI(raw), let url = URL(string: raw) else {
            throw invalid(name, "must be an absolute URI with a scheme")
        }
        return url
    }

    /// The ``AuthErrorCode/invalidConfiguration`` error for a field, with its JSON path.
    public func invalid(_ name: String, _ message: String) -> AuthError {
        AuthError(.invalidConfiguration, message: "\(path.isEmpty ? id : path).\(name): \(message)", provider: id)
    }
}
