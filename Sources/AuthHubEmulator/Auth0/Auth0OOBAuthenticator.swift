import Foundation

/// An out-of-band MFA authenticator (`authenticator_type: oob`) for the `sms` or `email` channel.
struct Auth0OOBAuthenticator: Sendable {
    /// `sms|dev_…` or `email|dev_…`.
    var id: String
    /// `sms` or `email`.
    var channel: String
    /// The phone number or email address the binding codes go to.
    var target: String
    /// False between `/mfa/associate` and the first accepted binding code.
    var confirmed: Bool
    /// For SMS authenticators enrolled through the My Account API: `sms` or `voice`.
    var preferredMethod: String? = nil

    /// The `type` of `/mfa/authenticators` and `mfa_requirements`: `phone` for SMS, `email` for email.
    var factorType: String { channel == "sms" ? "phone" : "email" }

    /// The masked target shown as `name`: `XXXXXXXX` and the last four digits of a phone number,
    /// or the first letter, `***` and the domain of an email address.
    var maskedName: String {
        if channel == "sms" {
            let digits = target.filter(\.isNumber)
            return "XXXXXXXX" + String(digits.suffix(4))
        }
        let parts = target.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let first = parts[0].first else { return "***" }
        return "\(first)***@\(parts[1])"
    }
}
