extension RunningEmulator {
    /// The back-channel logout deliveries the Auth0 tenant attempted, oldest first, as
    /// `GET /auth0/__emulator/backchannel-logouts` lists them (see the DocC article “Auth0
    /// back-channel logout”): one per logout token POSTed to a client's back-channel logout URL, with
    /// the receiver's HTTP status or why there was none.
    /// - Parameter clientId: only the deliveries to this client, when given.
    public func auth0BackchannelLogouts(clientId: String? = nil) async -> [Auth0BackchannelLogoutDelivery] {
        await state.get(Auth0Tenant.key).backchannelLogouts.filter { clientId == nil || $0.clientId == clientId }
    }
}
