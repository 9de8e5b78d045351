import Foundation

/// Device sign-in through the hub (``DeviceSignInProvider``).
extension AuthHub {
    /// A device sign-in (RFC 8628: the device shows a code, the user approves elsewhere) whose session
    /// is stored when approved, replacing a stored one as ``signIn(_:provider:account:)`` does.
    ///
    /// ```swift
    /// let flow = try hub.deviceSignIn(provider: "auth0")
    /// let code = try await flow.start()               // show code.userCode at code.verificationURI
    /// let session = try await flow.waitForApproval()  // stored
    /// ```
    /// - Throws: ``AuthErrorCode/unsupported`` for a provider without device sign-in.
    public func deviceSignIn(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                             options: DeviceSignInOptions = DeviceSignInOptions()) throws -> DeviceSignInFlow {
        let p = try provider(id)
        guard let device = p as? any DeviceSignInProvider else {
            throw AuthError(.unsupported, message: "Device sign-in is not available for provider '\(p.id)'.", provider: p.id)
        }
        let m = try manager(provider: p.id, account: account)
        let telemetry = context.telemetry
        let policy = signInPolicy
        return DeviceSignInFlow(provider: device, options: options, clock: context.clock, complete: { session in
            // Counted by `finished` below (a device sign-in can fail before any session exists).
            let start = try await m.beginSignIn(policy: policy, upgradesGuest: false)
            return try await m.finishSignIn(session, after: start, policy: policy)
        }, finished: { result in
            let outcome: String
            switch result {
            case .success: outcome = "success"
            case .failure(let error): outcome = AuthTelemetry.outcome(error)
            }
            telemetry.increment(AuthTelemetry.MetricName.signIns, [("provider", p.id), ("method", "device"), ("outcome", outcome)])
        })
    }
}
