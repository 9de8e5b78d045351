import AuthHub
import AuthHubEmulator
import Foundation

/// Real-HTTP helpers for the emulator tests: every request goes through `URLSessionTransport`
/// to a loopback port.
struct EmulatorClient {
    let transport = URLSessionTransport(defaultTimeout: .seconds(30))

    /// Sends a request and parses a JSON body when there is one.
    func send(
        _ method: HTTPRequest.Method,
        _ url: URL,
        json body: JSONValue? = nil
    ) async throws -> (response: HTTPReply, json: JSONValue?) {
        var headers: HTTPFields = [:]
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            data = try JSONEncoder().encode(body)
        }
        let response = try await transport.send(method, url, headerFields: headers, body: data)
        let json = response.body.isEmpty ? nil : try? JSONValue.parse(response.body)
        return (response, json)
    }
}

/// The health body every built-in emulator answers.
let builtInHealth: JSONValue = ["status": "ok", "modules": ["auth0", "firebase", "openfort", "turnkey"]]

/// A test module that keeps a counter in ``EmulatorState`` and counts its own resets, to show that
/// modules can add routes and keep state, and that a reset clears it.
struct CounterModule: EmulatorModule {
    static let counter = EmulatorStateKey(module: "counter", name: "value", initial: 0)

    let name = "counter"
    let pathPrefixes = ["/counter"]
    let resets = Mutex(0)

    func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
        let state = environment.state
        routes.post("/counter/increment") { _, _ in
            let value = await state.update(Self.counter) { value -> Int in
                value += 1
                return value
            }
            return EmulatorResponse.json(["value": .number(Double(value))])
        }
        routes.get("/counter/value") { _, _ in
            EmulatorResponse.json(["value": .number(Double(await state.get(Self.counter)))])
        }
    }

    func reset() async {
        resets.withLock { $0 += 1 }
    }
}

/// A module that tries to register a route outside its own prefix.
struct TrespassingModule: EmulatorModule {
    let name = "trespasser"
    let pathPrefixes = ["/mine"]

    func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
        routes.get("/auth0/oauth/token") { _, _ in EmulatorResponse.json(["stolen": true]) }
    }
}

/// A module whose prefix overlaps the Auth0 module's.
struct OverlappingModule: EmulatorModule {
    let name = "overlap"
    let pathPrefixes = ["/auth0/extra"]

    func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {}
}
