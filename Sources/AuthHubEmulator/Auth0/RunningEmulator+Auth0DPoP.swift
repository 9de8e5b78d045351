import enum AuthHub.Base64URL
import struct AuthHub.SystemRandom

extension RunningEmulator {
    /// Switches the Auth0 tenant's DPoP nonce mode in process, as `POST /auth0/__emulator/dpop`
    /// does over HTTP (see the DocC article “Auth0 DPoP”): while on, every DPoP proof the tenant
    /// checks must carry the current nonce, else the reply is `use_dpop_nonce` with `DPoP-Nonce`.
    /// - Parameters:
    ///   - required: nonce mode on or off.
    ///   - rotate: replace the current nonce with a new one (the previous one becomes stale).
    /// - Returns: the current nonce, nil when nonce mode is off.
    @discardableResult
    public func setAuth0DPoPNonceRequired(_ required: Bool, rotate: Bool = false) async -> String? {
        let candidate = Base64URL.encode(SystemRandom().bytes(16))
        return await state.update(Auth0Tenant.key) { tenant in
            tenant.dpop.configure(nonceRequired: required, rotate: rotate, candidate: candidate)
            return tenant.dpop.nonce
        }
    }

    /// The Auth0 tenant's current DPoP nonce, nil when nonce mode is off.
    public func auth0DPoPNonce() async -> String? {
        await state.get(Auth0Tenant.key).dpop.nonce
    }
}
