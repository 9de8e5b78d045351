import AuthHub
import Crypto
import Foundation

extension TurnkeyAPI {
    /// Looks up the sub-organizations of an email through the app backend:
    /// `GET <proxyURL>/proxy/sub-org-ids?filterType=EMAIL&filterValue=<email>` (no stamp; the email
    /// percent-encoded, `+` and `&` included).
    /// - Returns: the `organizationIds`, never empty.
    /// - Throws: ``AuthErrorCode/userNotFound`` when there is none.
    package func lookupSubOrganizations(email: String) async throws -> [String] {
        var base = configuration.proxyURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        let request = APIRequest(.get, base + Self.lookupPath, query: [("filterType", "EMAIL"), ("filterValue", email)], operation: .signIn)
        let ids = try await client(.request, baseURL: configuration.proxyURL).send(request, as: TurnkeyOrganizationIDs.self).organizationIds
        guard !ids.isEmpty else {
            throw AuthError(.userNotFound, message: "No Turnkey account is registered for this email.", provider: providerID)
        }
        return ids
    }

    /// `list_suborgs` (<doc:TurnkeyProtocol>: “Email lookup”), for servers holding the parent organization's API key.
    /// - Parameters:
    ///   - organizationId: the parent organization (the configured one by default).
    ///   - stamper: a stamper with the parent organization's API key.
    /// - Returns: `organizationIds` (empty when none match).
    package func listSubOrganizations(filterType: String, filterValue: String, organizationId: String? = nil,
                                     stamper: any TurnkeyStamper) async throws -> [String] {
        try await query("list_suborgs", body: TurnkeyListSubOrganizationsQuery(organizationId: organizationId ?? configuration.organizationId,
                                                                               filterType: filterType, filterValue: filterValue),
                        as: TurnkeyOrganizationIDs.self, stamper: stamper, operation: .management).organizationIds
    }
}
