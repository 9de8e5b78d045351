import AuthHub
import AuthHubAuth0
import AuthHubFactors
import AuthHubFirebase
import AuthHubOIDC
import AuthHubOpenfort
import AuthHubTurnkey
import Crypto
import Foundation

/// The plugins of `ProviderRegistry.builtIn`, listed here so the fuzz package does not need the
/// AuthHubProviders product (the same list).
let fuzzRegistry = ProviderRegistry([Auth0Plugin(), OIDCPlugin(), FirebasePlugin(), OpenfortPlugin(), TurnkeyPlugin()])

/// What `${VAR}` interpolation in a fuzzed providers.json can see.
let fuzzEnvironmentVariables = [
    "AUTH0_CLIENT_ID": "client-from-env", "AUTHHUB_STATE_DIR": "/tmp/authhub-fuzz-state", "AUTHHUB_STORE_KEY": "c2VjcmV0",
    "EMPTY": "", "HOME": "/tmp",
]

// MARK: 1. providers.json

/// Seam: `ConfigLoader.validate(data:allEnvironments:)`, `load(data:environment:)`, `loadAll(data:)`
/// and each plugin's `makeProvider` on what loaded (no network: the transport fails every request).
let configTarget = FuzzTarget(name: "config", summary: "providers.json loading, validation and provider construction") { bytes in
    let data = Data(bytes)
    let loader = ConfigLoader(registry: fuzzRegistry, environmentVariables: fuzzEnvironmentVariables)
    let problems = loader.validate(data: data, allEnvironments: true)
    _ = problems.map(\.description)
    _ = try? loader.load(data: data)
    guard let environments = try? loader.loadAll(data: data) else { return }
    let context = ProviderContext(transport: FixedTransport(replies: [:]), clock: FuzzClock(), random: FuzzRandom())
    for environment in environments {
        for configuration in environment.providers {
            guard let plugin = fuzzRegistry.plugin(for: configuration.type) else { continue }
            _ = plugin.validate(configuration)
            _ = try? plugin.makeProvider(configuration, context: context)
        }
    }
}

// MARK: 3. JSON

/// Decodable types fed by `JSONDecoder`, as replies and files are.
private struct DecodedSession: Decodable {
    var session: Session
}

/// Seam: `JSONValue.parse` (AuthHub's one-pass reader), its writer (`serialized()` and a re-parse
/// that must give the same tree), and `JSONDecoder` into `JSONValue`, `Session` and `UserInfo`.
let jsonTarget = FuzzTarget(name: "json", summary: "JSONValue parse/serialize round trip and Decodable models") { bytes in
    let data = Data(bytes)
    if let value = try? JSONValue.parse(data) {
        _ = value.typeName
        if let written = try? value.serialized() {
            let again = try? JSONValue.parse(written)
            // The writer's output must parse back to the same tree (NaN cannot occur: JSON has none).
            if again != value { fatalError("JSONValue round trip changed the value") }
        }
    }
    let decoder = JSONDecoder()
    _ = try? decoder.decode(JSONValue.self, from: data)
    decoder.dateDecodingStrategy = .secondsSince1970
    _ = try? decoder.decode(Session.self, from: data)
    _ = try? decoder.decode(UserInfo.self, from: data)
    _ = try? decoder.decode(PasskeyRelyingParty.self, from: data)
}

// MARK: 2. Session files

/// The store directory, made once per process.
let sessionDirectory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-fuzz-sessions-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    return url
}()

/// A 32-byte key (base64) for the encrypted store.
let sessionEncryptionKey = Secret(Data((0..<32).map { UInt8($0) }).base64EncodedString())

let plainStore: FileSessionStore? = try? FileSessionStore(directory: sessionDirectory.appendingPathComponent("plain"))
let sealedStore: FileSessionStore? = try? FileSessionStore(directory: sessionDirectory.appendingPathComponent("sealed"),
                                                           encryptionKey: sessionEncryptionKey)

/// Seam: `FileSessionStore.load` of a file written at `fileURL(for:)`. First byte: 0 = the bytes are
/// the file (plain store); 1 = the bytes are the session JSON sealed (AES-256-GCM, the file name as
/// authenticated data, the documented format) into an envelope for the encrypted store; 2 = the
/// bytes are the file, read by the encrypted store.
let sessionFileTarget = FuzzTarget(name: "session-file", summary: "FileSessionStore.load of a fuzzed (plain or sealed) session file") { bytes in
    guard let plainStore, let sealedStore else { fatalError("cannot create the session store directory") }
    var reader = FuzzReader(bytes)
    let mode = reader.byte() % 3
    let key = SessionKey(provider: "auth0", account: "default")
    let body = Data(reader.rest())
    let store = mode == 0 ? plainStore : sealedStore
    let url = store.fileURL(for: key)
    var contents = body
    if mode == 1 {
        guard let sealed = try? SessionSealing.seal(body, fileName: url.lastPathComponent) else { return }
        contents = sealed
    }
    guard (try? contents.write(to: url)) != nil else { fatalError("cannot write the session file") }
    runBlocking {
        guard let session = try? await store.load(key) else { return }
        _ = session.description
        _ = session.isValid(at: Date(timeIntervalSince1970: 1_767_225_600), minTTL: 60)
        _ = session.canRenew
        _ = session.scopeSet
    }
}

/// Seals a session JSON the way the encrypted file store does (spec: SessionFileFormat doc comment).
enum SessionSealing {
    static func seal(_ sessionJSON: Data, fileName: String) throws -> Data {
        let envelope: JSONValue = [
            "format": "authhub.session", "version": 1,
            "key": ["provider": "auth0", "account": "default"],
            "cipher": "AES-256-GCM",
            "sealed": .string(try sealedBase64(sessionJSON, fileName: fileName)),
        ]
        return try envelope.serialized()
    }
}

// MARK: 7. Headers

/// Seam: swift-http-types' `HTTPFields` built from hostile names and values (as a transport builds
/// them from a reply), `retryAfter(now:)`, an `HTTPReply` with any status code; `Location` is read by
/// the OIDC and Openfort code through the provider target. Also the generic `StatusErrorMapper` that
/// attaches Retry-After.
let headersTarget = FuzzTarget(name: "headers", summary: "HTTPFields from hostile bytes and Retry-After parsing") { bytes in
    var reader = FuzzReader(bytes)
    var fields = HTTPFields()
    while !reader.isAtEnd {
        let name = reader.byte() < 200 ? reader.pick(fuzzHeaderNames) : reader.string()
        let value = reader.string()
        if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
    }
    _ = fields.retryAfter(now: Date(timeIntervalSince1970: 1_767_225_600))
    _ = fields.retryAfter(now: Date(timeIntervalSince1970: 0))
    _ = fields[.location]
    _ = fields == fields
    _ = StatusErrorMapper().map(HTTPReply(status: 429, headerFields: fields), provider: "fuzz")
    _ = StatusErrorMapper().map(HTTPReply(status: Int(Int16(truncatingIfNeeded: reader.u16())), headerFields: fields), provider: "fuzz")
}

// MARK: 2b. AuthHub-held factor files

let heldFactorOwner = HeldFactorOwner(provider: "oidc", user: "fuzz-user")
let plainHeldStore: FileHeldFactorStore? = try? FileHeldFactorStore(directory: sessionDirectory.appendingPathComponent("held-plain"))
let sealedHeldStore: FileHeldFactorStore? = try? FileHeldFactorStore(directory: sessionDirectory.appendingPathComponent("held-sealed"),
                                                                      encryptionKey: sessionEncryptionKey)

/// Seam: `FileHeldFactorStore.load` of a file at `<directory>/<owner reference>.json`, then what
/// `HeldFactors` reads of the record (the methods list, the second step: every factor's material
/// decoded). First byte: 0 = the bytes are the file (plain store); 1 = the bytes are the record JSON
/// sealed (AES-256-GCM, the file name as authenticated data — the documented format) into an
/// envelope for the sealed store; 2 = the bytes are the file, read by the sealed store.
let heldFactorFileTarget = FuzzTarget(name: "held-factor-file", summary: "FileHeldFactorStore.load and HeldFactors of a fuzzed held-factor file") { bytes in
    guard let plainHeldStore, let sealedHeldStore else { fatalError("cannot create the held-factor store directory") }
    var reader = FuzzReader(bytes)
    let mode = reader.byte() % 3
    let store = mode == 0 ? plainHeldStore : sealedHeldStore
    let name = heldFactorOwner.reference + ".json"
    var contents = Data(reader.rest())
    if mode == 1 {
        guard let sealed = try? HeldFactorSealing.seal(contents, fileName: name, owner: heldFactorOwner) else { return }
        contents = sealed
    }
    try? FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
    guard (try? contents.write(to: store.directory.appendingPathComponent(name))) != nil else { fatalError("cannot write the held-factor file") }
    runBlocking {
        guard let record = try? await store.load(heldFactorOwner) else { return }
        _ = record.confirmed.count
        guard let service = try? HeldFactors(store: store, providers: ["oidc"], issuer: "Fuzz",
                                             relyingParty: WebAuthnRelyingParty(id: "example.com"), clock: FuzzClock(), random: FuzzRandom()) else { return }
        _ = try? await service.methods(of: heldFactorOwner)
        if let step = try? await service.secondStep(for: heldFactorOwner) {
            _ = try? await service.verify(.totp(Secret("123456")), step: step, owner: heldFactorOwner)
            _ = try? await service.verify(.recoveryCode(Secret("0000-0000-0000-0000")), step: step, owner: heldFactorOwner)
        }
    }
}

/// Seals a held-factor record JSON the way the sealed file store does (spec: HeldFactorRecordFormat doc comment).
enum HeldFactorSealing {
    static func seal(_ recordJSON: Data, fileName: String, owner: HeldFactorOwner) throws -> Data {
        let key = SymmetricKey(data: Data((0..<32).map { UInt8($0) }))
        guard let combined = try AES.GCM.seal(recordJSON, using: key, authenticating: Data(fileName.utf8)).combined else {
            throw AuthError(.unknown, message: "no combined box")
        }
        let envelope: JSONValue = ["format": "authhub.held-factors", "version": 1, "owner": .string(owner.reference),
                                   "cipher": "AES-256-GCM", "sealed": .string(combined.base64EncodedString())]
        return try envelope.serialized()
    }
}
