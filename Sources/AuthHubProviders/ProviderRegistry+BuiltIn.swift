import AuthHub
import AuthHubAuth0
import AuthHubFactors
import AuthHubFirebase
import AuthHubOIDC
import AuthHubOpenfort
import AuthHubTurnkey

extension ProviderRegistry {
    /// Every built-in provider type: `auth0`, `firebase`, `oidc`, `openfort` and `turnkey`, and
    /// `heldFactors` built by `AuthHubFactors`' `HeldFactorsFactory`.
    ///
    /// Add your own with `ProviderRegistry.builtIn.registering(MyPlugin())`.
    public static let builtIn = ProviderRegistry([
        Auth0Plugin(), FirebasePlugin(), OIDCPlugin(), OpenfortPlugin(), TurnkeyPlugin(),
    ]).registering(heldFactorFactory: HeldFactorsFactory())
}
