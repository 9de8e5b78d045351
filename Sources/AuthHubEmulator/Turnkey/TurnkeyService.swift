import enum AuthHub.JSONValue
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The Turnkey API of the emulator: the handlers behind ``TurnkeyEmulatorModule``'s routes,
/// written from AuthHubTurnkey docs, TurnkeyProtocol alone (conventions are listed on the module).
struct TurnkeyService: Sendable {
    /// The parent organization `POST /turnkey/__emulator/users` uses when none is given.
    static let defaultParentOrganizationId = "00000000-0000-4000-8000-0000000000aa"
    /// Session and API key lifetime when `expirationSeconds` is absent (AuthHubTurnkey docs, TurnkeyProtocol: “stamp_login”).
    static let defaultExpirationSeconds = 900
    /// The longest `expirationSeconds` accepted (one year).
    static let maximumExpirationSeconds = 365 * 86_400
    /// How old an activity's `timestampMs` may be.
    static let maximumTimestampAge: TimeInterval = 86_400
    /// How far ahead of the emulator clock an activity's `timestampMs` may be.
    static let maximumTimestampLead: TimeInterval = 3_600
    static let maximumBodySize = 1 << 20

    let environment: EmulatorEnvironment
    /// Signs session JWTs (AuthHubTurnkey docs, TurnkeyProtocol: “Session JWT”). Made when the emulator starts; only its public key leaves.
    let notarizer: P256.Signing.PrivateKey

    var state: EmulatorState { environment.state }
    var now: Date { environment.clock.now }

    init(environment: EmulatorEnvironment) {
        self.environment = environment
        self.notarizer = P256.Signing.PrivateKey()
    }

    // MARK: - Request plumbing

    /// The exact bytes of the request body (a stamp covers these bytes).
    static func rawBody(_ request: Request) async throws -> Data {
        do {
            let buffer = try await request.body.collect(upTo: maximumBodySize)
            return Data(buffer.readableBytesView)
        } catch {
            throw TurnkeyFailure.invalid("body", "the request body is too large or could not be read")
        }
    }

    /// `data` as a JSON object (else `400` code 3).
    static func object(_ data: Data) throws -> [String: JSONValue] {
        guard let value = try? JSONValue.parse(data), let object = value.objectValue else {
            throw TurnkeyFailure.invalid("body", "the request body must be a JSON object")
        }
        return object
    }

    /// A required non-empty string member.
    static func string(_ object: [String: JSONValue], _ name: String, in path: String = "") throws -> String {
        guard let value = object[name], value != .null else {
            throw TurnkeyFailure.invalid(path + name, "required field is missing")
        }
        guard let string = value.stringValue else { throw TurnkeyFailure.invalid(path + name, "must be a string") }
        guard !string.isEmpty else { throw TurnkeyFailure.invalid(path + name, "must not be empty") }
        return string
    }

    /// An optional string member (a wrong type is `400`).
    static func optionalString(_ object: [String: JSONValue], _ name: String, in path: String = "") throws -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let string = value.stringValue else { throw TurnkeyFailure.invalid(path + name, "must be a string") }
        return string
    }

    /// An optional boolean member.
    static func optionalBool(_ object: [String: JSONValue], _ name: String, in path: String = "") throws -> Bool? {
        guard let value = object[name], value != .null else { return nil }
        guard let flag = value.boolValue else { throw TurnkeyFailure.invalid(path + name, "must be a boolean") }
        return flag
    }

    /// A required object member.
    static func objectMember(_ object: [String: JSONValue], _ name: String, in path: String = "") throws -> [String: JSONValue] {
        guard let value = object[name], value != .null else {
            throw TurnkeyFailure.invalid(path + name, "required field is missing")
        }
        guard let member = value.objectValue else { throw TurnkeyFailure.invalid(path + name, "must be an object") }
        return member
    }

    /// Whether `text` is a non-empty run of ASCII digits no longer than 18.
    static func isDecimal(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 18 && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// `expirationSeconds`: a decimal string (a JSON number is tolerated), 1…one year; default 900.
    static func expirationSeconds(_ object: [String: JSONValue], in path: String) throws -> Int {
        let field = path + "expirationSeconds"
        guard let value = object["expirationSeconds"], value != .null else { return defaultExpirationSeconds }
        let seconds: Int?
        switch value {
        case .string(let text): seconds = isDecimal(text) ? Int(text) : nil
        case .number(let number): seconds = number.rounded() == number && abs(number) < 1e15 ? Int(number) : nil
        default: throw TurnkeyFailure.invalid(field, "must be a string of decimal seconds")
        }
        guard let seconds, seconds > 0, seconds <= maximumExpirationSeconds else {
            throw TurnkeyFailure.invalid(field, "must be a decimal number of seconds between 1 and \(maximumExpirationSeconds)")
        }
        return seconds
    }


    // MARK: - Ids

    /// A random version-4 UUID, lower case.
    func newUUID() -> String {
        var bytes = environment.random.bytes(16)
        if bytes.count < 16 { bytes += Array(repeating: 0, count: 16 - bytes.count) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = TurnkeyCrypto.hex(bytes.prefix(16))
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }

    /// The organization `id`, created as a parent organization (with a root user) when unknown.
    static func ensureParent(_ id: String, in directory: inout TurnkeyDirectory, now: Date, userId: () -> String) -> TurnkeyOrganization {
        if let organization = directory.organizations[id] { return organization }
        let organization = TurnkeyOrganization(
            id: id, name: "Emulator Organization \(id.prefix(8))", parentId: nil,
            users: [TurnkeyUser(id: userId(), userName: "Root User", email: nil)], createdAt: now
        )
        directory.organizations[id] = organization
        return organization
    }
}
