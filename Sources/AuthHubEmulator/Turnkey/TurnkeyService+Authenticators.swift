import AuthHub
import AuthHubFactors
import Crypto
import Foundation
import Hummingbird

/// A user's passkey authenticators (AuthHubTurnkey docs, TurnkeyProtocol: “Authenticators”): the
/// `get_authenticators` query and the `create_authenticators` (V2) and `delete_authenticators`
/// activities, over the users of ``TurnkeyDirectory``, stamped and verified as every route.
extension TurnkeyService {
    static let createAuthenticatorsType = "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2"
    static let deleteAuthenticatorsType = "ACTIVITY_TYPE_DELETE_AUTHENTICATORS"
    /// The most authenticators one activity adds or removes.
    static let maximumAuthenticatorsPerActivity = 10

    /// `POST /turnkey/public/v1/query/get_authenticators` `{organizationId, userId}` →
    /// `{"authenticators": [{transports, attestationType, aaguid, credentialId, model, credential:
    /// {publicKey, type}, authenticatorId, authenticatorName, createdAt, updatedAt}]}`. The stamp's
    /// owner must belong to that organization or its parent; an unknown user is `404` code 5.
    func getAuthenticators(_ request: Request) async throws -> JSONValue {
        let stamp = try Self.stamp(of: request)
        let body = try await Self.rawBody(request)
        let object = try Self.object(body)
        let organizationId = try Self.string(object, "organizationId")
        let userId = try Self.string(object, "userId")
        let owner = try await authenticate(stamp, body: body, organizationId: organizationId)
        let directory = await state.get(TurnkeyDirectory.key)
        guard let organization = directory.organizations[organizationId],
              owner.organizationId == organizationId || owner.organizationId == organization.parentId
        else {
            throw TurnkeyFailure.permissionDenied("the request's key does not belong to organization \(organizationId) or its parent")
        }
        guard let user = organization.users.first(where: { $0.id == userId }) else {
            throw TurnkeyFailure.notFound("user \(userId) not found in organization \(organizationId)")
        }
        return ["authenticators": .array(user.authenticators.map(Self.json))]
    }

    /// An authenticator as `get_authenticators` lists it. The emulator's choices where Turnkey's
    /// reference gives only types: `credentialId` base64url; `credential.publicKey` the compressed
    /// P-256 key in hex (an ES256 passkey; empty otherwise); `aaguid` in UUID form; `model` empty
    /// (the emulator keeps no authenticator metadata); transports in Turnkey's enum names.
    static func json(_ authenticator: TurnkeyAuthenticator) -> JSONValue {
        let record = authenticator.credential
        var publicKey = ""
        if let key = try? COSEKey(bytes: record.publicKey), case .ec2(curve: 1, x: let x, y: let y) = key.material,
           let point = try? P256.Signing.PublicKey(x963Representation: [4] + x + y) {
            publicKey = TurnkeyCrypto.hex(point.compressedRepresentation)
        }
        return [
            "transports": .array(turnkeyTransports(record.transports).map(JSONValue.string)),
            "attestationType": .string(record.attestationFormat), "aaguid": .string(uuid(record.aaguid)),
            "credentialId": .string(Base64URL.encode(record.id)), "model": "",
            "credential": ["publicKey": .string(publicKey), "type": "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"],
            "authenticatorId": .string(authenticator.id), "authenticatorName": .string(authenticator.name),
            "createdAt": TurnkeyActivity.timestamp(authenticator.createdAt), "updatedAt": TurnkeyActivity.timestamp(authenticator.createdAt),
        ]
    }

    /// Turnkey's names of transports kept either way (`internal` or `AUTHENTICATOR_TRANSPORT_INTERNAL`);
    /// others dropped.
    static func turnkeyTransports(_ transports: [String]) -> [String] {
        transports.compactMap { transport in
            let upper = transport.uppercased()
            let name = upper.hasPrefix("AUTHENTICATOR_TRANSPORT_") ? upper : "AUTHENTICATOR_TRANSPORT_" + upper
            return authenticatorTransports.contains(name) ? name : nil
        }
    }

    /// 16 bytes as a lower-case UUID (8-4-4-4-12); zeros for anything else.
    static func uuid(_ bytes: [UInt8]) -> String {
        let chars = Array(TurnkeyCrypto.hex(bytes.count == 16 ? bytes : [UInt8](repeating: 0, count: 16)))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }

    /// The owner of an activity on a user's authenticators: the stamp's owner must be a user of the
    /// named organization itself (a parent organization does not write to its sub-organizations:
    /// `403` code 7), and `userId` a user there (`404` code 5).
    func authenticatorOwner(_ submission: Submission, userId: String) async throws -> TurnkeyDirectory.Owner {
        let owner = try await authenticate(submission.stamp, body: submission.body, organizationId: submission.organizationId)
        guard owner.organizationId == submission.organizationId else {
            throw TurnkeyFailure.permissionDenied("the request's key does not belong to organization \(submission.organizationId)")
        }
        let target = TurnkeyDirectory.Owner(organizationId: submission.organizationId, userId: userId)
        guard await state.get(TurnkeyDirectory.key).user(target) != nil else {
            throw TurnkeyFailure.notFound("user \(userId) not found in organization \(submission.organizationId)")
        }
        return target
    }

    /// `POST /turnkey/public/v1/submit/create_authenticators` (`ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`)
    /// `parameters {authenticators: [{authenticatorName, challenge, attestation: {credentialId,
    /// clientDataJson, attestationObject, transports}}], userId}` → activity with
    /// `result.createAuthenticatorsResult.authenticatorIds`. Each registration is verified against
    /// the configured RP ID over its `challenge`; a passkey registered anywhere already is `409`
    /// code 6; `transports` outside Turnkey's enum are `400` code 3.
    func createAuthenticators(_ request: Request) async throws -> JSONValue {
        let submission = try await submission(request, type: Self.createAuthenticatorsType)
        let path = "parameters."
        let parameters = submission.parameters
        let userId = try Self.string(parameters, "userId", in: path)
        let items = try Self.boundedList(parameters, "authenticators", in: path, of: "authenticators")
        var parsed: [(name: String, item: [String: JSONValue], path: String)] = []
        for (index, value) in items.enumerated() {
            let itemPath = path + "authenticators[\(index)]."
            guard let item = value.objectValue else { throw TurnkeyFailure.invalid(String(itemPath.dropLast()), "must be an object") }
            let name = try Self.string(item, "authenticatorName", in: itemPath)
            guard name.count <= 256 else { throw TurnkeyFailure.invalid(itemPath + "authenticatorName", "must be at most 256 characters") }
            if let transports = item["attestation"]?["transports"]?.arrayValue {
                for (position, transport) in transports.enumerated() {
                    guard let text = transport.stringValue, Self.authenticatorTransports.contains(text) else {
                        throw TurnkeyFailure.invalid(itemPath + "attestation.transports[\(position)]",
                                                     "must be one of \(Self.authenticatorTransports.sorted().joined(separator: ", "))")
                    }
                }
            }
            parsed.append((name, item, itemPath))
        }
        let owner = try await authenticatorOwner(submission, userId: userId)
        let now = self.now
        var added: [TurnkeyAuthenticator] = []
        for entry in parsed {
            let credential = try await verifiedPasskey(entry.item, path: entry.path)
            guard !added.contains(where: { $0.credential.id == credential.id }) else {
                throw TurnkeyFailure.alreadyExists("this passkey is listed twice")
            }
            added.append(TurnkeyAuthenticator(id: newUUID(), name: entry.name, credential: credential, createdAt: now))
        }
        let directory = await state.get(TurnkeyDirectory.key)
        if added.contains(where: { directory.isRegistered(credential: $0.credential.id) }) {
            throw TurnkeyFailure.alreadyExists("this passkey is already registered")
        }
        let outcome = Outcome(
            intentKey: "createAuthenticatorsIntentV2", resultKey: "createAuthenticatorsResult",
            result: ["authenticatorIds": .array(added.map { .string($0.id) })],
            effect: .addAuthenticators(owner, added), organizationId: owner.organizationId
        )
        return await record(outcome, type: Self.createAuthenticatorsType, submission: submission)
    }

    /// `POST /turnkey/public/v1/submit/delete_authenticators` (`ACTIVITY_TYPE_DELETE_AUTHENTICATORS`)
    /// `parameters {userId, authenticatorIds}` → activity with
    /// `result.deleteAuthenticatorsResult.authenticatorIds`. An id the user does not hold is `404`
    /// code 5. Removing every passkey the user has is refused, `400` code 9
    /// (`FAILED_PRECONDITION`): the emulator's choice, since Turnkey's reference does not say what it
    /// does — a user left without a passkey could not sign in on a new device again (session and
    /// API keys do not count: they expire, and cannot be added without signing in).
    func deleteAuthenticators(_ request: Request) async throws -> JSONValue {
        let submission = try await submission(request, type: Self.deleteAuthenticatorsType)
        let path = "parameters."
        let parameters = submission.parameters
        let userId = try Self.string(parameters, "userId", in: path)
        let values = try Self.boundedList(parameters, "authenticatorIds", in: path, of: "ids")
        var ids: [String] = []
        for (index, value) in values.enumerated() {
            guard let id = value.stringValue, !id.isEmpty else {
                throw TurnkeyFailure.invalid(path + "authenticatorIds[\(index)]", "must be a non-empty string")
            }
            ids.append(id)
        }
        let owner = try await authenticatorOwner(submission, userId: userId)
        let held = await state.get(TurnkeyDirectory.key).user(owner)?.authenticators.map(\.id) ?? []
        if let missing = ids.first(where: { !held.contains($0) }) {
            throw TurnkeyFailure.notFound("authenticator \(missing) not found for user \(userId)")
        }
        guard held.contains(where: { !ids.contains($0) }) else {
            throw TurnkeyFailure.failedPrecondition("cannot remove the user's last authenticator: the user would have no passkey to sign in with")
        }
        let outcome = Outcome(
            intentKey: "deleteAuthenticatorsIntent", resultKey: "deleteAuthenticatorsResult",
            result: ["authenticatorIds": .array(ids.map(JSONValue.string))],
            effect: .deleteAuthenticators(owner, ids), organizationId: owner.organizationId
        )
        return await record(outcome, type: Self.deleteAuthenticatorsType, submission: submission)
    }

    /// The array `key` of an activity's parameters, of 1 to ``maximumAuthenticatorsPerActivity``
    /// entries (`400` code 3 otherwise).
    static func boundedList(_ parameters: [String: JSONValue], _ key: String, in path: String, of what: String) throws -> [JSONValue] {
        guard let list = parameters[key]?.arrayValue else {
            throw TurnkeyFailure.invalid(path + key, "required array is missing")
        }
        guard (1...maximumAuthenticatorsPerActivity).contains(list.count) else {
            throw TurnkeyFailure.invalid(path + key, "must list 1 to \(maximumAuthenticatorsPerActivity) \(what)")
        }
        return list
    }
}
