import AuthHub
import Foundation

/// The `firebase` provider type: Firebase Authentication (Identity Toolkit) email/password, against
/// production or the Auth emulator.
///
/// ```json
/// { "id": "firebase", "type": "firebase", "apiKey": "${FIREBASE_API_KEY}", "projectId": "my-app" }
/// ```
public struct FirebasePlugin: ProviderPlugin {
    /// The `type` value in providers.json.
    public static let typeName = "firebase"

    /// Creates the plugin; register it with ``ProviderRegistry/register(_:)`` or use `ProviderRegistry.builtIn`.
    public init() {}

    public var type: String { Self.typeName }
    public var summary: String { "Firebase Authentication: email/password, tokens from securetoken, Auth emulator support" }
    public var capabilities: Set<AuthCapability> { Self.providerCapabilities }

    /// What a Firebase provider supports: email/password sign-in and sign-up, password reset,
    /// refresh, user info, account deletion, email verification, `mfa` (a sign-in that needs a
    /// second factor throws ``AuthErrorCode/mfaRequired`` and is finished with
    /// `SignInRequest.mfa` and a TOTP code, Identity Platform v2 `mfaSignIn:finalize`) and
    /// `factorEnrollment` (TOTP enrollment through ``FirebaseAuth/startTOTPEnrollment(issuer:account:)``).
    /// Not `idToken` (sign-in with another identity provider's ID token, `accounts:signInWithIdp`)
    /// nor `revoke` (Firebase cannot revoke client tokens).
    static let providerCapabilities: Set<AuthCapability> = [
        .passwordSignIn, .signUp, .passwordReset, .refresh, .userInfo, .accountDeletion, .emailVerification, .mfa, .factorEnrollment,
    ]

    public var fields: [ConfigField] {
        [
            ConfigField("apiKey", .string, required: true, secret: true,
                        description: "Web API key, sent as the key query parameter. The emulator accepts any non-empty value."),
            ConfigField("projectId", .string, required: true,
                        description: "Project ID: the aud of ID tokens, whose iss is https://securetoken.google.com/<projectId>."),
            ConfigField("emulatorHost", .hostPort,
                        description: "Auth emulator host:port (as FIREBASE_AUTH_EMULATOR_HOST): requests go to http://<host:port>/<production host>/… and the emulator's unsigned tokens are accepted."),
            ConfigField("tenantId", .string, description: "Identity Platform tenant to sign users in to."),
        ]
    }

    /// Checks what field declarations cannot: the project ID's alphabet (Google project IDs are
    /// lowercase letters, digits and hyphens).
    public func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if let projectId = configuration.string("projectId"), !projectId.isEmpty,
           !projectId.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        {
            problems.append(ConfigProblem(path: "projectId", message: "must contain only lowercase letters, digits and '-'"))
        }
        return problems
    }

    public func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        FirebaseProvider(id: configuration.id, configuration: try FirebaseConfiguration(configuration), context: context)
    }
}
