import Foundation

/// My Account attributes of one authentication method.
struct Auth0MethodDetails: Sendable {
    /// The name set with `PATCH /me/v1/authentication-methods/{id}`.
    var name: String?
    var createdAt: Date
    /// For a passkey method: the credential ID of the passkey in ``Auth0User/passkeys``.
    var credentialID: [UInt8]? = nil
    /// For a passkey method: the `User-Agent` of the enrolling request.
    var userAgent: String? = nil
}
