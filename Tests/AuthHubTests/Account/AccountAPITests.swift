import AuthHub
import AuthHubTesting
import Foundation
import Synchronization
import Testing

/// The hub's account API over a plugin's ``AccountProvider`` (a test double that keeps methods in
/// memory): what the hub checks before a provider is called — the capability, the session, the
/// method's id and removability, the shape of an address, a number or a name — and that errors carry
/// the provider's id.
@Suite struct AccountAPITests {
    /// An account provider as a third-party plugin would write it: TOTP enrollment and removal only.
    final class LedgerProvider: AccountProvider, Sendable {
        let id: String
        var type: String { "ledger" }
        var capabilities: Set<AuthCapability> { [.passwordSignIn] }
        var accountCapabilities: Set<AccountCapability> { [.listMethods, .enrollTOTP, .enrollEmailCode, .deleteMethod, .changeName] }
        let methods = Mutex<[AccountMethod]>([AccountMethod(id: "pw", kind: .password, usage: [.primary], isDeletable: false)])
        let calls = Mutex<[String]>([])

        init(id: String) { self.id = id }

        func signIn(_ request: SignInRequest) async throws -> Session {
            Session(providerID: id, accessToken: Secret("at"), expiresAt: Date().addingTimeInterval(3600), userID: "u1")
        }
        func accountMethods(_ manager: SessionManager) async throws -> [AccountMethod] {
            _ = try await manager.session()
            calls.withLock { $0.append("list") }
            return methods.withLock { $0 }
        }
        func startMethodEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                                   manager: SessionManager) async throws -> MethodEnrollmentChallenge {
            calls.withLock { $0.append("start \(request.kind)") }
            return try MethodEnrollmentChallenge(kind: request.kind, prompt: .codeSent(destination: "x"), state: ["n": options.name ?? "?"])
        }
        func confirmMethodEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                     manager: SessionManager) async throws -> AccountMethod? {
            let state = try challenge.state(as: [String: String].self, provider: id)
            guard case .code(let code) = response, code.revealed() == "123456" else { throw AuthError(.invalidMFACode, message: "Wrong code.") }
            let method = AccountMethod(id: "m\(methods.withLock { $0.count })", kind: challenge.kind, name: state["n"], usage: [.secondary])
            methods.withLock { $0.append(method) }
            return method
        }
        func deleteMethod(_ method: AccountMethod, manager: SessionManager) async throws {
            calls.withLock { $0.append("delete \(method.id)") }
            methods.withLock { $0.removeAll { $0.id == method.id } }
        }
    }

    struct LedgerPlugin: ProviderPlugin {
        let made = Mutex<LedgerProvider?>(nil)
        var type: String { "ledger" }
        var summary: String { "Ledger (test plugin)" }
        var capabilities: Set<AuthCapability> { [.passwordSignIn] }
        var fields: [ConfigField] { [] }
        func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
            let provider = LedgerProvider(id: configuration.id)
            made.withLock { $0 = provider }
            return provider
        }
    }

    /// A hub with the ledger provider (default) and a provider that is no account provider.
    static func hub() throws -> (AuthHub, LedgerProvider) {
        let plugin = LedgerPlugin()
        let registry = ProviderRegistry([plugin, AcmePlugin()])
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "ledger", "sessionStore": {"type": "memory"},
          "providers": [{"id": "ledger", "type": "ledger"}, {"id": "acme", "type": "acme", "tenant": "acme-1"}]}}}
        """
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: registry, context: ProviderContext(transport: StubTransport()))
        return (hub, try #require(plugin.made.withLock { $0 }))
    }

    @Test func theHubChecksWhatItCanBeforeTheProviderIsCalled() async throws {
        let (hub, ledger) = try Self.hub()
        #expect(try hub.accountCapabilities() == ledger.accountCapabilities)
        #expect(try hub.accountCapabilities(provider: "acme").isEmpty, "not an account provider")
        await #expect(throws: AuthError(.noSession)) { try await hub.accountMethods() }

        _ = try await hub.signIn(.password(identifier: "a@example.com", password: Secret("pw")))
        #expect(try await hub.accountMethods().map(\.id) == ["pw"])
        // Capabilities the provider lacks, and a provider that has none: refused before any call.
        await #expect(throws: AuthError(.unsupported)) { try await hub.startMethodEnrollment(.passkey) }
        await #expect(throws: AuthError(.unsupported)) { try await hub.changePassword(new: Secret("new")) }
        await #expect(throws: AuthError(.unsupported)) { try await hub.accountMethods(provider: "acme") }
        // Malformed input: refused before any call.
        for phone in ["555", "+1 555 0100", "+12", "+1234567890123456", "+١٢٣٤٥٦٧٨٩"] {
            await #expect(throws: AuthError(.invalidRequest), "\(phone)") { try await hub.startMethodEnrollment(.phoneCode(phoneNumber: phone)) }
        }
        for email in ["", "@", "a@", "@b", "a b@c", "a@b@c", "a\u{7}@b", String(repeating: "a", count: 250) + "@b.cd"] {
            await #expect(throws: AuthError(.invalidEmail), "\(email)") { try await hub.startMethodEnrollment(.emailCode(email: email)) }
        }
        for name in ["", "   ", "a\nb", String(repeating: "n", count: 257)] {
            await #expect(throws: AuthError(.invalidRequest), "\(name)") { try await hub.changeProfile(.name(name)) }
        }
        #expect(ledger.calls.withLock { $0 } == ["list"], "nothing else reached the provider")
    }

    @Test func enrollConfirmAndRemoveThroughTheHub() async throws {
        let (hub, ledger) = try Self.hub()
        _ = try await hub.signIn(.password(identifier: "a@example.com", password: Secret("pw")))
        let challenge = try await hub.startMethodEnrollment(.emailCode(email: "a@example.com"), options: MethodEnrollmentOptions(name: "Work"))
        #expect(challenge.kind == .emailCode)
        let wrong = await #expect(throws: AuthError(.invalidMFACode)) { try await hub.confirmMethodEnrollment(challenge, response: .code(Secret("000000"))) }
        #expect(wrong?.provider == "ledger", "errors carry the provider's id")
        let method = try #require(try await hub.confirmMethodEnrollment(challenge, response: .code(Secret("123456"))))
        #expect(method.name == "Work" && method.kind == .emailCode)
        // A challenge whose continuation the provider did not write.
        let forged = MethodEnrollmentChallenge(kind: .emailCode, prompt: .codeSent(destination: "x"), continuation: Secret("not json"))
        await #expect(throws: AuthError(.invalidRequest)) { try await hub.confirmMethodEnrollment(forged, response: .code(Secret("123456"))) }

        await #expect(throws: AuthError(.invalidRequest)) { try await hub.deleteMethod(id: "pw") }
        await #expect(throws: AuthError(.invalidRequest)) { try await hub.deleteMethod(id: "nope") }
        try await hub.deleteMethod(id: method.id)
        #expect(try await hub.accountMethods().map(\.id) == ["pw"])
        #expect(ledger.calls.withLock { $0 }.filter { $0.hasPrefix("delete") } == ["delete \(method.id)"], "only the removable one reached the provider")
    }

    @Test func methodsEncodeWithoutSecretsAndLabelThemselves() throws {
        let method = AccountMethod(id: "phone|1", kind: .smsCode, detail: "+*******0199", createdAt: Date(timeIntervalSince1970: 0), usage: [.secondary])
        #expect(method.label == "+*******0199")
        #expect(AccountMethod(id: "x", kind: .totp).label == "totp")
        let decoded = try JSONDecoder().decode(AccountMethod.self, from: JSONEncoder().encode(method))
        #expect(decoded == method)
        #expect(AccountCapability.enroll(.totp) == .enrollTOTP && AccountCapability.enroll(.password) == nil)
    }
}
