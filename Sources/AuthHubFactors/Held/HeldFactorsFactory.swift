import AuthHub
import Foundation

/// Builds ``HeldFactors`` from providers.json's `heldFactors` (`ProviderRegistry.builtIn` registers
/// it): the session store's held-factor store, the hub's clock and randomness.
public struct HeldFactorsFactory: HeldFactorServiceFactory {
    public init() {}

    public func makeService(_ settings: HeldFactorSettings, store: (any HeldFactorStore)?, context: ProviderContext) throws -> any HeldFactorService {
        let relyingParty = settings.relyingPartyID.map { WebAuthnRelyingParty(id: $0, origins: settings.origins.isEmpty ? nil : Set(settings.origins)) }
        return try HeldFactors(store: store, providers: Set(settings.providers), kinds: Set(settings.kinds), issuer: settings.issuer ?? "AuthHub",
                               relyingParty: relyingParty, clock: context.clock, random: context.random)
    }
}
