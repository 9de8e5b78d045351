import AuthHub
import Foundation

/// The settings of an `openfort` entry of providers.json, parsed (see ``OpenfortPlugin`` for the fields).
public struct OpenfortConfiguration: Sendable, Hashable {
    /// The auth API generation.
    public enum APIVersion: String, Sendable, Hashable, CaseIterable {
        /// `/iam/v2/auth/*` (better-auth sessions): what current SDKs use.
        case v2
        /// `/iam/v1/*` (players and refresh tokens): legacy.
        case v1
    }

    /// Public by design (it ships in apps), so not a `Secret`.
    public var publishableKey: String
    /// The API base URL (production: `https://api.openfort.io`).
    public var baseURL: URL
    /// The bundle identifier sent as `x-native-app-identifier`, if any.
    public var nativeAppIdentifier: String?
    /// The auth API generation.
    public var apiVersion: APIVersion

    /// Creates a configuration from values.
    public init(publishableKey: String, baseURL: URL, nativeAppIdentifier: String? = nil, apiVersion: APIVersion = .v2) {
        self.publishableKey = publishableKey
        self.baseURL = baseURL
        self.nativeAppIdentifier = nativeAppIdentifier
        self.apiVersion = apiVersion
    }

    /// Parses a validated providers.json entry.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the missing or invalid field.
    public init(_ configuration: ProviderConfiguration) throws {
        let version = configuration.string("apiVersion") ?? APIVersion.v2.rawValue
        guard let apiVersion = APIVersion(rawValue: version) else {
            throw configuration.invalid("apiVersion", "must be one of \"v2\", \"v1\"")
        }
        self.init(publishableKey: try configuration.requiredString("publishableKey"),
                  baseURL: try configuration.httpURL("baseURL") ?? Self.defaultBaseURL(),
                  nativeAppIdentifier: configuration.string("nativeAppIdentifier"),
                  apiVersion: apiVersion)
    }

    /// The production API URL, ``OpenfortPlugin/defaultBaseURL``.
    public static func defaultBaseURL() throws -> URL {
        guard let url = URL(string: OpenfortPlugin.defaultBaseURL) else {
            throw AuthError(.invalidConfiguration, message: "The default Openfort base URL is invalid.")
        }
        return url
    }
}
