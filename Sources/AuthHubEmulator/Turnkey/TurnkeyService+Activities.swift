import enum AuthHub.JSONValue
import Crypto
import Foundation
import Hummingbird

/// The activities (`/turnkey/public/v1/submit/…`, AuthHubTurnkey docs, TurnkeyProtocol: “Activities”) and `get_activity`.
extension TurnkeyService {
    static let stampLoginType = "ACTIVITY_TYPE_STAMP_LOGIN"
    static let readWriteSessionType = "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"

    /// A validated activity request.
    struct Submission: Sendable {
        var stamp: TurnkeyStamp
        var body: Data
        var organizationId: String
        var parameters: [String: JSONValue]
    }

    /// What an activity computed: its intent, result and effect.
    struct Outcome: Sendable {
        var intentKey: String
        var resultKey: String
        var result: JSONValue
        var effect: TurnkeyActivity.Effect?
        /// The organization the activity belongs to.
        var organizationId: String
    }

    /// Reads the activity envelope `{type, timestampMs, organizationId, parameters}` of a submit route.
    func submission(_ request: Request, type expectedType: String) async throws -> Submission {
        let stamp = try Self.stamp(of: request)
        let body = try await Self.rawBody(request)
        let object = try Self.object(body)
        let type = try Self.string(object, "type")
        guard type == expectedType else { throw TurnkeyFailure.invalid("type", "must be \(expectedType) for this route") }
        let timestamp = try Self.string(object, "timestampMs")
        guard Self.isDecimal(timestamp), let milliseconds = Double(timestamp) else {
            throw TurnkeyFailure.invalid("timestampMs", "must be a string of decimal milliseconds since the epoch")
        }
        let age = now.timeIntervalSince1970 - milliseconds / 1_000
        guard age <= Self.maximumTimestampAge, -age <= Self.maximumTimestampLead else {
            throw TurnkeyFailure.invalid("timestampMs", "is too far from the current time")
        }
        let organizationId = try Self.string(object, "organizationId")
        let parameters = try Self.objectMember(object, "parameters")
        return Submission(stamp: stamp, body: body, organizationId: organizationId, parameters: parameters)
    }

    /// Records an activity for `outcome` with the configured polls and one-shot outcome, applies
    /// its effect when it completes at once, and returns `{"activity": …}`.
    func record(_ outcome: Outcome, type: String, submission: Submission) async -> JSONValue {
        let now = self.now
        let id = newUUID()
        let fingerprint = TurnkeyCrypto.hex(SHA256.hash(data: submission.body))
        let activity = await state.update(TurnkeyDirectory.key) { directory -> TurnkeyActivity in
            let finalStatus = directory.config.nextActivityOutcome ?? "ACTIVITY_STATUS_COMPLETED"
            directory.config.nextActivityOutcome = nil
            var activity = TurnkeyActivity(
                id: id, organizationId: outcome.organizationId, type: type, intentKey: outcome.intentKey,
                intent: .object(submission.parameters), resultKey: outcome.resultKey, result: outcome.result,
                fingerprint: fingerprint, createdAt: now, updatedAt: now, finalStatus: finalStatus,
                pollsLeft: directory.config.activityPendingPolls, effect: outcome.effect, failure: nil
            )
            if finalStatus == "ACTIVITY_STATUS_FAILED" {
                activity.failure = [
                    "code": 9, "message": "activity failed (emulated outcome ACTIVITY_STATUS_FAILED)", "details": [],
                ]
            }
            if finalStatus != "ACTIVITY_STATUS_COMPLETED" { activity.effect = nil }
            if activity.pollsLeft == 0, let effect = activity.effect { directory.apply(effect) }
            directory.activities[id] = activity
            return activity
        }
        return ["activity": activity.json]
    }

    /// `POST /turnkey/public/v1/submit/stamp_login` (AuthHubTurnkey docs, TurnkeyProtocol: “stamp_login”).
    func stampLogin(_ request: Request) async throws -> JSONValue {
        let submission = try await submission(request, type: Self.stampLoginType)
        let path = "parameters."
        let parameters = submission.parameters
        let publicKey = try Self.string(parameters, "publicKey", in: path).lowercased()
        guard TurnkeyCrypto.signingKey(compressedHex: publicKey) != nil else {
            throw TurnkeyFailure.invalid(path + "publicKey", "must be a compressed P-256 public key in hex (66 characters)")
        }
        let seconds = try Self.expirationSeconds(parameters, in: path)
        let invalidate = try Self.optionalBool(parameters, "invalidateExisting", in: path) ?? false
        let owner = try await authenticate(submission.stamp, body: submission.body, organizationId: submission.organizationId)

        let expiresAt = now.addingTimeInterval(TimeInterval(seconds))
        let session: String
        do {
            session = try TurnkeyCrypto.sessionJWT(
                expiresAt: expiresAt, publicKey: publicKey, userId: owner.userId, organizationId: owner.organizationId,
                notarizer: notarizer
            )
        } catch {
            throw TurnkeyFailure.internalError
        }
        let key = TurnkeyAPIKey(
            id: newUUID(), name: "Session Key \(Int64(now.timeIntervalSince1970 * 1_000))", publicKey: publicKey,
            createdAt: now, expiresAt: expiresAt, isSession: true
        )
        let outcome = Outcome(
            intentKey: "stampLoginIntent", resultKey: "stampLoginResult", result: ["session": .string(session)],
            effect: .apiKey(organizationId: owner.organizationId, userId: owner.userId, key: key, invalidateExisting: invalidate),
            organizationId: owner.organizationId
        )
        return await record(outcome, type: Self.stampLoginType, submission: submission)
    }

    /// `POST /turnkey/public/v1/submit/create_read_write_session` (AuthHubTurnkey docs, TurnkeyProtocol: “create_read_write_session”, V2).
    func createReadWriteSession(_ request: Request) async throws -> JSONValue {
        let submission = try await submission(request, type: Self.readWriteSessionType)
        let path = "parameters."
        let parameters = submission.parameters
        let target = try Self.string(parameters, "targetPublicKey", in: path)
        guard let receiver = TurnkeyCrypto.agreementKey(hex: target) else {
            throw TurnkeyFailure.invalid(path + "targetPublicKey", "must be a P-256 public key in hex (uncompressed 04… or compressed)")
        }
        let requestedUser = try Self.optionalString(parameters, "userId", in: path)
        let apiKeyName = try Self.optionalString(parameters, "apiKeyName", in: path)
        let seconds = try Self.expirationSeconds(parameters, in: path)
        let invalidate = try Self.optionalBool(parameters, "invalidateExisting", in: path) ?? false
        var owner = try await authenticate(submission.stamp, body: submission.body, organizationId: submission.organizationId)

        let directory = await state.get(TurnkeyDirectory.key)
        if let requestedUser, !requestedUser.isEmpty {
            guard directory.organizations[owner.organizationId]?.users.contains(where: { $0.id == requestedUser }) == true else {
                throw TurnkeyFailure.notFound("user \(requestedUser) not found in organization \(owner.organizationId)")
            }
            owner.userId = requestedUser
        }
        guard let organization = directory.organizations[owner.organizationId], let user = directory.user(owner) else {
            throw TurnkeyFailure.publicKeyNotFound
        }
        let privateKey = P256.Signing.PrivateKey()
        let bundle: String
        do {
            bundle = try TurnkeyCrypto.credentialBundle(Array(privateKey.rawRepresentation), to: receiver)
        } catch {
            throw TurnkeyFailure.internalError
        }
        let milliseconds = Int64(now.timeIntervalSince1970 * 1_000)
        let key = TurnkeyAPIKey(
            id: newUUID(), name: apiKeyName.flatMap { $0.isEmpty ? nil : $0 } ?? "Read Write Session - \(milliseconds)",
            publicKey: TurnkeyCrypto.hex(privateKey.publicKey.compressedRepresentation),
            createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(seconds)), isSession: true
        )
        let result: JSONValue = [
            "organizationId": .string(organization.id), "organizationName": .string(organization.name),
            "userId": .string(user.id), "username": .string(user.userName), "apiKeyId": .string(key.id),
            "credentialBundle": .string(bundle),
        ]
        let outcome = Outcome(
            intentKey: "createReadWriteSessionIntentV2", resultKey: "createReadWriteSessionResultV2", result: result,
            effect: .apiKey(organizationId: owner.organizationId, userId: owner.userId, key: key, invalidateExisting: invalidate),
            organizationId: owner.organizationId
        )
        return await record(outcome, type: Self.readWriteSessionType, submission: submission)
    }

    /// `POST /turnkey/public/v1/query/get_activity` `{organizationId, activityId}` → `{"activity": …}`.
    /// Each poll of a pending activity counts down; the last one completes it (and applies its effect).
    func getActivity(_ request: Request) async throws -> JSONValue {
        let stamp = try Self.stamp(of: request)
        let body = try await Self.rawBody(request)
        let object = try Self.object(body)
        let organizationId = try Self.string(object, "organizationId")
        let activityId = try Self.string(object, "activityId")
        let owner = try await authenticate(stamp, body: body, organizationId: organizationId)
        let now = self.now
        let activity = try await state.update(TurnkeyDirectory.key) { directory -> TurnkeyActivity in
            guard var activity = directory.activities[activityId],
                  activity.organizationId == organizationId || activity.organizationId == owner.organizationId
            else {
                throw TurnkeyFailure.notFound("activity \(activityId) not found in organization \(organizationId)")
            }
            if activity.pollsLeft > 0 {
                activity.pollsLeft -= 1
                if activity.pollsLeft == 0 {
                    activity.updatedAt = now
                    if let effect = activity.effect { directory.apply(effect) }
                }
                directory.activities[activityId] = activity
            }
            return activity
        }
        return ["activity": activity.json]
    }
}
