import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubTesting
import Foundation
import Testing

/// The headless "authentication methods" overview: load, delete, rename, failure and retry, step-up.
@Suite struct Auth0AuthenticationMethodsFlowTests {
    let transport = StubTransport()
    let methods = Mutex<[JSONValue]>([
        ["id": "totp|dev_1", "type": "totp", "confirmed": true, "usage": ["secondary"], "created_at": "2026-11-01T00:00:00.000Z"],
        ["id": "phone|dev_2", "type": "phone", "confirmed": true, "usage": ["secondary"], "created_at": "2026-11-02T00:00:00.000Z"],
    ])

    func flow(reauthenticate: ReauthenticationHandler? = nil) throws -> Auth0AuthenticationMethodsFlow {
        let provider = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                                     context: ProviderContext(transport: transport, clock: FakeClock()))
        let api = Auth0MyAccountAPI(provider: provider) { scope in
            Auth0APICredentials(accessToken: Secret("t"), tokenType: "Bearer", expiresAt: .distantFuture, scope: scope)
        }
        let methods = self.methods
        transport.on(.get, "/me/v1/authentication-methods") { _ in .json(200, ["authentication_methods": .array(methods.withLock { $0 })]) }
        transport.on(.get, "/me/v1/factors") { _ in
            .json(200, ["factors": [["type": "totp", "usage": ["secondary"]], ["type": "phone", "usage": ["secondary"]], ["type": "passkey", "usage": ["primary"]]]])
        }
        transport.on(.delete) { request in
            let id = request.url.lastPathComponent
            let found = methods.withLock { list in
                let before = list.count
                list.removeAll { $0["id"]?.stringValue == id }
                return list.count < before
            }
            return found ? .raw(204, "") : .json(404, ["type": "t", "status": 404, "title": "Not Found", "detail": "No such method"])
        }
        return Auth0AuthenticationMethodsFlow(api: api, reauthenticate: reauthenticate)
    }

    @Test func loadsDeletesAndRenames() async throws {
        transport.on(.patch, "/me/v1/authentication-methods/phone|dev_2") { request in
            #expect(request.jsonBody == ["name": "Work phone"])
            return .json(200, ["id": "phone|dev_2", "name": "Work phone"])
        }
        let flow = try flow()
        let states = await flow.states()
        let loaded = await flow.load()
        #expect(loaded.overview?.methods.map(\.id) == ["totp|dev_1", "phone|dev_2"])
        #expect(loaded.overview?.enrollable == ["passkey"])
        let afterDelete = await flow.delete(id: "totp|dev_1")
        #expect(afterDelete.overview?.methods.map(\.id) == ["phone|dev_2"] && afterDelete.overview?.enrollable == ["totp", "passkey"])
        #expect(transport.requests.contains { $0.method == .delete && $0.url.absoluteString.hasSuffix("/authentication-methods/totp%7Cdev_1") })
        #expect(await flow.rename(id: "phone|dev_2", to: "Work phone").name == "loaded")
        var names: [String] = []
        for await state in states {
            names.append(state.name)
            if names.count == 7 { break }
        }
        #expect(names == ["idle", "loading", "loaded", "updating", "loaded", "updating", "loaded"])
    }

    @Test func aFailedDeleteCanBeRetriedAndAnEmptyNameIsRefusedLocally() async throws {
        let flow = try flow()
        await flow.load()
        let failed = await flow.delete(id: "webauthn|nope")
        #expect(failed.name == "failed" && failed.error?.statusCode == 404)
        let back = await flow.retry()
        #expect(back.overview?.methods.count == 2)
        let requests = transport.requests.count
        #expect(await flow.rename(id: "phone|dev_2", to: "  ").error?.details["field"] == "name")
        #expect(transport.requests.count == requests)
        // Actions are only taken from `loaded`: after a failure nothing is sent until retry.
        #expect(await flow.delete(id: "phone|dev_2").name == "failed")
        #expect(transport.requests.count == requests)
    }

    @Test func aMissingScopeAsksForReauthenticationAndTheDeleteIsRepeated() async throws {
        transport.on(.delete, times: 1, first: true) { _ in
            .json(403, ["type": "t", "status": 403, "title": "Forbidden", "detail": "Insufficient scope; expected delete:me:authentication_methods."])
        }
        let asked = Mutex<[String]>([])
        let flow = try flow { error in asked.withLock { $0.append(error.details["requiredScope"] ?? "?") } }
        await flow.load()
        let done = await flow.delete(id: "phone|dev_2")
        #expect(asked.withLock { $0 } == ["delete:me:authentication_methods"])
        #expect(done.overview?.methods.map(\.id) == ["totp|dev_1"])
    }

    @Test func withoutAHandlerTheOverviewWaitsThenResumes() async throws {
        transport.on(.get, "/me/v1/authentication-methods", times: 1, first: true) { _ in
            .json(403, ["type": "t", "status": 403, "title": "Forbidden", "detail": "Insufficient scope; expected read:me:authentication_methods."])
        }
        let flow = try flow()
        let refused = await flow.load()
        #expect(refused.name == "reauthenticationRequired" && refused.error?.code == .insufficientScope)
        #expect(await flow.resume().overview?.methods.count == 2)
    }
}
