import AuthHub
@testable import AuthHubEmulator
import Foundation
import Hummingbird
import Testing

/// Modules that build their routes as Hummingbird `RouteCollection`s and answer refusals by
/// throwing errors that render themselves.
@Suite struct EmulatorRouteCollectionTests {
    let client = EmulatorClient()

    /// An error no provider failure type describes.
    struct Unforeseen: Error {}

    /// A module whose routes live in one collection added at its prefix.
    struct CollectionModule: EmulatorModule {
        let name = "collection"
        let pathPrefixes = ["/collection"]

        func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
            let collection = RouteCollection(failures: OpenfortFailure.self)
            collection.get("items/{id}") { _, context in
                EmulatorResponse.json(["id": .string(context.parameters.get("id") ?? "")])
            }
            collection.get("refusal") { _, _ -> Response in throw OpenfortFailure.userNotFound }
            collection.get("unforeseen") { _, _ -> Response in throw Unforeseen() }
            collection.get("foreign") { _, _ -> Response in throw Auth0Failure.invalidToken("Missing access token.") }
            routes.addRoutes(collection, atPath: "/collection")

            let auth0 = RouteCollection(failures: Auth0Failure.self)
            auth0.get("token") { _, _ -> Response in throw Auth0Failure.invalidToken("Missing access token.") }
            auth0.get("problem") { _, _ -> Response in throw Auth0Failure.problemUnauthorized("No token.") }
            routes.addRoutes(auth0, atPath: "/collection/auth0")
        }
    }

    /// A module that adds a collection outside its prefix.
    struct StrayCollectionModule: EmulatorModule {
        let name = "stray"
        let pathPrefixes = ["/stray"]

        func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
            let collection = RouteCollection(context: EmulatorRequestContext.self)
            collection.get("inside") { _, _ in EmulatorResponse.json([:]) }
            routes.addRoutes(collection, atPath: "/elsewhere")
        }
    }

    @Test func collectionRoutesAreListedWithFullPathsAndAnswer() async throws {
        let emulator = try await Emulator(modules: [CollectionModule()]).start()
        let info = try await client.send(.get, emulator.url("/collection/__emulator")).json
        let item = try await client.send(.get, emulator.url("/collection/items/42")).json
        await emulator.stop()

        #expect(info?["routes"] == [
            "GET /collection/__emulator", "GET /collection/auth0/problem", "GET /collection/auth0/token",
            "GET /collection/foreign", "GET /collection/items/:id", "GET /collection/refusal", "GET /collection/unforeseen",
        ])
        #expect(item == ["id": "42"])
    }

    @Test func thrownFailuresRenderTheProvidersReply() async throws {
        let emulator = try await Emulator(modules: [CollectionModule()]).start()
        let refusal = try await client.send(.get, emulator.url("/collection/refusal"))
        let unforeseen = try await client.send(.get, emulator.url("/collection/unforeseen"))
        let foreign = try await client.send(.get, emulator.url("/collection/foreign"))
        let auth0 = try await client.send(.get, emulator.url("/collection/auth0/token"))
        let problem = try await client.send(.get, emulator.url("/collection/auth0/problem"))
        await emulator.stop()

        #expect(refusal.response.status == 400)
        #expect(refusal.response.headerFields["Content-Type"] == "application/json; charset=utf-8")
        #expect(String(decoding: refusal.response.body, as: UTF8.self) == #"{"code":"USER_NOT_FOUND","message":"User not found"}"#)

        #expect(unforeseen.response.status == 500)
        #expect(unforeseen.json == ["code": "INTERNAL_SERVER_ERROR", "message": "The emulator failed to handle the request."])

        // Another provider's failure is not foreseen in an Openfort collection.
        #expect(foreign.response.status == 500)
        #expect(foreign.json == unforeseen.json)

        #expect(auth0.response.status == 401)
        #expect(auth0.response.headerFields["Cache-Control"] == "no-store")
        #expect(auth0.response.headerFields["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
        #expect(auth0.json == ["error": "invalid_token", "error_description": "Missing access token."])

        #expect(problem.response.status == 401)
        #expect(problem.response.headerFields["Content-Type"] == "application/problem+json")
        #expect(problem.json?["detail"] == "No token.")
    }

    @Test func aCollectionOutsideTheModulesPrefixesIsRejected() async throws {
        let error = await #expect(throws: AuthError.self) {
            _ = try await Emulator(modules: [StrayCollectionModule()]).start()
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("GET /elsewhere/inside") == true)
    }
}
