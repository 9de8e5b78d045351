import AuthHub
import AuthHubFactors
import Foundation
import Hummingbird

/// The emulator-only hooks under `/turnkey/__emulator/` (not Turnkey; no stamp needed).
extension TurnkeyService {
    /// `POST /turnkey/__emulator/users`: a new sub-organization of a parent organization with one
    /// user holding one passkey, whose registration is verified for real against the configured RP ID.
    /// Body `{parentOrganizationId?, email, userName?, subOrganizationName?, authenticator:
    /// {authenticatorName?, challenge, attestation: {credentialId, clientDataJson, attestationObject,
    /// transports?}}}` → `{organizationId, userId, authenticatorId}`.
    func registerUser(_ request: Request) async throws -> JSONValue {
        let body = try Self.object(try await Self.rawBody(request))
        let parentId = try Self.optionalString(body, "parentOrganizationId").flatMap { $0.isEmpty ? nil : $0 }
            ?? Self.defaultParentOrganizationId
        let authenticator = try Self.objectMember(body, "authenticator")
        let created = try await createSubOrganization(
            parentId: parentId, email: try Self.string(body, "email"),
            userName: try Self.optionalString(body, "userName"), subOrganizationName: try Self.optionalString(body, "subOrganizationName"),
            authenticator: authenticator, path: "authenticator.")
        return ["organizationId": .string(created.organizationId), "userId": .string(created.userId),
                "authenticatorId": .string(created.authenticatorId)]
    }

    /// `POST /turnkey-proxy/auth/createSubOrg`: the app backend's sign-up call, in the shape of
    /// Turnkey's own example backend (tkhq/swift-sdk `Examples/with-backend/example-server`:
    /// `POST /auth/createSubOrg`, `CreateSubOrgParams` → `CreateSubOrgResponse`). Body `{email,
    /// passkey: {name?, challenge, attestation: {credentialId, clientDataJson, attestationObject,
    /// transports?}}}` → `{subOrganizationId}`. The proxy holds the parent organization's key, so no
    /// stamp; the sub-organization is created under the default parent organization with one root
    /// user holding the passkey (verified against the configured RP ID). A taken email or passkey
    /// is `409` (`ALREADY_EXISTS`); a missing passkey is `400` (this emulator's proxy signs users up
    /// with passkeys only). The backend passes `transports` on to `create_sub_organization`, whose
    /// `AuthenticatorTransport` enum has five values (``authenticatorTransports``): any other value
    /// makes Turnkey refuse the whole request, so here it is `400` code 3 naming the transport.
    func proxyCreateSubOrg(_ request: Request) async throws -> JSONValue {
        let body = try Self.object(try await Self.rawBody(request))
        let passkey = try Self.objectMember(body, "passkey")
        if let transports = passkey["attestation"]?["transports"]?.arrayValue {
            for (index, value) in transports.enumerated() {
                guard let name = value.stringValue, Self.authenticatorTransports.contains(name) else {
                    throw TurnkeyFailure.invalid("passkey.attestation.transports[\(index)]",
                                                 "must be one of \(Self.authenticatorTransports.sorted().joined(separator: ", "))")
                }
            }
        }
        let created = try await createSubOrganization(
            parentId: Self.defaultParentOrganizationId, email: try Self.string(body, "email"), userName: nil,
            subOrganizationName: nil, authenticator: passkey, path: "passkey.", nameField: "name")
        return ["subOrganizationId": .string(created.organizationId)]
    }

    /// Creates a sub-organization of `parentId` whose one user (`email`) holds the passkey described
    /// by `authenticator` (`challenge`, `attestation`, and a name under `nameField`), after verifying
    /// the registration. Email format, duplicate email (among the parent's sub-organizations) and
    /// duplicate passkey are refused.
    func createSubOrganization(parentId: String, email rawEmail: String, userName: String?, subOrganizationName: String?,
                               authenticator: [String: JSONValue], path: String,
                               nameField: String = "authenticatorName") async throws -> (organizationId: String, userId: String, authenticatorId: String) {
        let email = rawEmail.lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 320, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !email.contains(" ") else {
            throw TurnkeyFailure.invalid("email", "must be an email address")
        }
        let userName = userName.flatMap { $0.isEmpty ? nil : $0 } ?? email
        let subOrganizationName = subOrganizationName.flatMap { $0.isEmpty ? nil : $0 } ?? "Sub-organization of \(email)"
        let authenticatorName = try Self.optionalString(authenticator, nameField, in: path).flatMap { $0.isEmpty ? nil : $0 }
            ?? "Passkey"
        let credential = try await verifiedPasskey(authenticator, path: path)

        let now = self.now
        let organizationId = newUUID(), userId = newUUID(), authenticatorId = newUUID(), rootUserId = newUUID()
        try await state.update(TurnkeyDirectory.key) { directory in
            _ = Self.ensureParent(parentId, in: &directory, now: now, userId: { rootUserId })
            guard directory.organizations[parentId]?.parentId == nil else {
                throw TurnkeyFailure.invalid("parentOrganizationId", "is a sub-organization")
            }
            let siblings = directory.subOrganizations(of: parentId)
            if siblings.contains(where: { $0.users.contains { $0.email == email } }) {
                throw TurnkeyFailure.alreadyExists("a sub-organization with email \(email) already exists")
            }
            if directory.isRegistered(credential: credential.id) { throw TurnkeyFailure.alreadyExists("this passkey is already registered") }
            directory.organizations[organizationId] = TurnkeyOrganization(
                id: organizationId, name: subOrganizationName, parentId: parentId,
                users: [TurnkeyUser(
                    id: userId, userName: userName, email: email,
                    authenticators: [TurnkeyAuthenticator(id: authenticatorId, name: authenticatorName, credential: credential, createdAt: now)]
                )],
                createdAt: now
            )
        }
        return (organizationId, userId, authenticatorId)
    }

    /// The passkey described by `authenticator` (`challenge` and `attestation: {credentialId,
    /// clientDataJson, attestationObject, transports?}`, base64url), its registration verified
    /// against the configured RP ID (the origin `https://<rpId>` or a subdomain, `http` on
    /// localhost). Malformed members or a registration that does not verify → `400` code 3 naming
    /// the field under `path`.
    func verifiedPasskey(_ authenticator: [String: JSONValue], path: String) async throws -> WebAuthnCredentialRecord {
        guard let challenge = Base64URL.decode(try Self.string(authenticator, "challenge", in: path)) else {
            throw TurnkeyFailure.invalid(path + "challenge", "must be base64url")
        }
        let attestationPath = path + "attestation."
        let attestation = try Self.objectMember(authenticator, "attestation", in: path)
        func bytes(_ name: String) throws -> [UInt8] {
            guard let data = Base64URL.decode(try Self.string(attestation, name, in: attestationPath)) else {
                throw TurnkeyFailure.invalid(attestationPath + name, "must be base64url")
            }
            return Array(data)
        }
        var transports: [String] = []
        if let value = attestation["transports"], value != .null {
            guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw TurnkeyFailure.invalid(attestationPath + "transports", "must be an array of strings")
            }
            transports = array.compactMap(\.stringValue)
        }
        let registration = PasskeyRegistration(
            credentialID: try bytes("credentialId"), clientDataJSON: try bytes("clientDataJson"),
            attestationObject: try bytes("attestationObject"), transports: transports
        )
        let rpId = await state.get(TurnkeyDirectory.key).config.rpId
        let credential: WebAuthnCredentialRecord
        do {
            let party = try Self.relyingParty(rpId: rpId, clientDataJSON: registration.clientDataJSON)
            credential = try party.verifyRegistration(registration, challenge: Array(challenge))
        } catch let error as AuthError {
            throw TurnkeyFailure.invalid(path + "attestation", "the passkey registration does not verify: \(error.message)")
        }
        return credential
    }

    /// `POST /turnkey/__emulator/api-keys` `{organizationId, publicKey, expirationSeconds?, apiKeyName?}`:
    /// an API key on the organization's first user (an unknown organization is created as a
    /// parent with a root user) → `{apiKeyId, organizationId, userId}`.
    func registerAPIKey(_ request: Request) async throws -> JSONValue {
        let now = self.now
        let body = try Self.object(try await Self.rawBody(request))
        let organizationId = try Self.string(body, "organizationId")
        let publicKey = try Self.string(body, "publicKey").lowercased()
        guard TurnkeyCrypto.signingKey(compressedHex: publicKey) != nil else {
            throw TurnkeyFailure.invalid("publicKey", "must be a compressed P-256 public key in hex (66 characters)")
        }
        var expiresAt: Date?
        if let value = body["expirationSeconds"], value != .null {
            expiresAt = now.addingTimeInterval(TimeInterval(try Self.expirationSeconds(body, in: "")))
        }
        let expiry = expiresAt
        let name = try Self.optionalString(body, "apiKeyName").flatMap { $0.isEmpty ? nil : $0 } ?? "Emulator API Key"
        let keyId = newUUID(), rootUserId = newUUID()
        return try await state.update(TurnkeyDirectory.key) { directory -> JSONValue in
            let organization = Self.ensureParent(organizationId, in: &directory, now: now, userId: { rootUserId })
            guard let user = organization.users.first else { throw TurnkeyFailure.notFound("the organization has no user") }
            let owner = TurnkeyDirectory.Owner(organizationId: organizationId, userId: user.id)
            directory.updateUser(owner) { user in
                user.apiKeys.removeAll { $0.publicKey == publicKey }
                user.apiKeys.append(TurnkeyAPIKey(
                    id: keyId, name: name, publicKey: publicKey, createdAt: now, expiresAt: expiry, isSession: false
                ))
            }
            return ["apiKeyId": .string(keyId), "organizationId": .string(organizationId), "userId": .string(user.id)]
        }
    }

    /// `GET /turnkey/__emulator/notarizer` → `{"publicKey": "04…"}` (uncompressed hex).
    func notarizerKey() -> JSONValue {
        ["publicKey": .string(TurnkeyCrypto.hex(notarizer.publicKey.x963Representation))]
    }

    /// Turnkey's `AuthenticatorTransport` enum (the values `create_sub_organization` accepts).
    static let authenticatorTransports: Set<String> = [
        "AUTHENTICATOR_TRANSPORT_BLE", "AUTHENTICATOR_TRANSPORT_INTERNAL", "AUTHENTICATOR_TRANSPORT_NFC",
        "AUTHENTICATOR_TRANSPORT_USB", "AUTHENTICATOR_TRANSPORT_HYBRID",
    ]

    /// `GET /turnkey/__emulator/config`.
    func getConfig() async -> JSONValue {
        await state.get(TurnkeyDirectory.key).config.json
    }

    /// `PATCH /turnkey/__emulator/config` `{rpId?, activityPendingPolls?, nextActivityOutcome?, proxyLookup?}` → the config.
    func patchConfig(_ request: Request) async throws -> JSONValue {
        let body = try Self.object(try await Self.rawBody(request))
        let rpId = try Self.optionalString(body, "rpId")
        if let rpId, rpId.isEmpty || rpId.contains("/") || rpId.contains(" ") {
            throw TurnkeyFailure.invalid("rpId", "must be a host name")
        }
        var polls: Int?
        if let value = body["activityPendingPolls"], value != .null {
            guard let number = value.doubleValue, number.rounded() == number, number >= 0, number <= 100 else {
                throw TurnkeyFailure.invalid("activityPendingPolls", "must be an integer between 0 and 100")
            }
            polls = Int(number)
        }
        var outcome: String?? = nil
        if let value = body["nextActivityOutcome"] {
            if value == .null {
                outcome = .some(nil)
            } else {
                guard let text = value.stringValue, TurnkeyConfig.outcomes.contains(text) else {
                    throw TurnkeyFailure.invalid("nextActivityOutcome", "must be null or one of \(TurnkeyConfig.outcomes.sorted().joined(separator: ", "))")
                }
                outcome = .some(text == "ACTIVITY_STATUS_COMPLETED" ? nil : text)
            }
        }
        var lookup: Bool?
        if let value = body["proxyLookup"], value != .null {
            guard case .bool(let flag) = value else { throw TurnkeyFailure.invalid("proxyLookup", "must be a boolean") }
            lookup = flag
        }
        let newPolls = polls, newOutcome = outcome, newLookup = lookup
        return await state.update(TurnkeyDirectory.key) { directory -> JSONValue in
            if let newLookup { directory.config.proxyLookup = newLookup }
            if let rpId { directory.config.rpId = rpId.lowercased() }
            if let newPolls { directory.config.activityPendingPolls = newPolls }
            if let newOutcome { directory.config.nextActivityOutcome = newOutcome }
            return directory.config.json
        }
    }
}
