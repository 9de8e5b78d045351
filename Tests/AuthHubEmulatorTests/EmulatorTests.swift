import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Logging
import Testing

@Suite struct EmulatorTests {
    let client = EmulatorClient()

    @Test func startsOnEphemeralLoopbackPortAndAnswersHealthOverHTTP() async throws {
        let emulator = try await Emulator.start()
        #expect(emulator.port > 0)
        #expect(emulator.baseURL.absoluteString == "http://127.0.0.1:\(emulator.port)")
        #expect(await emulator.state.baseURL == emulator.baseURL)

        let (response, json) = try await client.send(.get, emulator.url("/__authhub/health"))
        await emulator.stop()

        #expect(response.status == 200)
        #expect(response.headerFields["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(json == builtInHealth)
    }

    @Test func twoEmulatorsRunAtOnceOnDifferentPortsWithSeparateState() async throws {
        let modulesA: [any EmulatorModule] = Emulator.builtInModules + [CounterModule()]
        let modulesB: [any EmulatorModule] = Emulator.builtInModules + [CounterModule()]
        async let startA = Emulator(modules: modulesA).start()
        async let startB = Emulator(modules: modulesB).start()
        let (a, b) = try await (startA, startB)

        #expect(a.port != b.port)
        _ = try await client.send(.post, a.url("/counter/increment"))
        _ = try await client.send(.post, a.url("/counter/increment"))
        let healthA = try await client.send(.get, a.url("/__authhub/health"))
        let healthB = try await client.send(.get, b.url("/__authhub/health"))
        let valueA = try await client.send(.get, a.url("/counter/value"))
        let valueB = try await client.send(.get, b.url("/counter/value"))
        await a.stop()
        await b.stop()

        #expect(healthA.response.status == 200)
        #expect(healthB.response.status == 200)
        #expect(valueA.json == ["value": 2])
        #expect(valueB.json == ["value": 0])
    }

    @Test func stopReleasesThePort() async throws {
        let emulator = try await Emulator.start()
        let port = emulator.port
        let before = try await client.send(.get, emulator.url("/__authhub/health"))
        #expect(before.response.status == 200)

        await emulator.stop()
        await emulator.stop()  // idempotent

        // Nothing listens any more: a fresh connection is refused.
        let error = await #expect(throws: TransportError.self) {
            _ = try await EmulatorClient().send(.get, emulator.url("/__authhub/health"))
        }
        #expect(error?.kind == .connection)

        // And the port can be bound again.
        let again = try await Emulator.start(EmulatorConfiguration(port: port))
        let after = try await client.send(.get, again.url("/__authhub/health"))
        await again.stop()
        #expect(again.port == port)
        #expect(after.response.status == 200)
    }

    @Test func startingOnATakenPortFailsWithAClearError() async throws {
        let first = try await Emulator.start()
        let error = await #expect(throws: AuthError.self) {
            _ = try await Emulator.start(EmulatorConfiguration(port: first.port))
        }
        #expect(error?.code == .addressInUse)
        #expect(error?.message.contains("127.0.0.1:\(first.port)") == true)
        #expect(error?.message.contains("already in use") == true)

        // The first emulator is unaffected.
        let health = try await client.send(.get, first.url("/__authhub/health"))
        await first.stop()
        #expect(health.json == builtInHealth)
    }

    @Test func nonLoopbackHostsAreRefusedByDefault() async throws {
        for host in ["0.0.0.0", "192.0.2.10", "::", "example.com"] {
            let error = await #expect(throws: AuthError.self, "host \(host)") {
                _ = try await Emulator.start(EmulatorConfiguration(host: host))
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains("non-loopback") == true)
        }
        let badPort = await #expect(throws: AuthError.self) {
            _ = try await Emulator.start(EmulatorConfiguration(port: 70_000))
        }
        #expect(badPort?.code == .invalidConfiguration)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("LOCALHOST", true), ("::1", true),
        ("[::1]", true), ("0:0:0:0:0:0:0:1", true), ("0.0.0.0", false), ("10.0.0.1", false),
        ("128.0.0.1", false), ("::", false), ("::2", false), ("example.com", false), ("", false),
    ])
    func loopbackDetection(host: String, loopback: Bool) {
        #expect(EmulatorConfiguration.isLoopback(host) == loopback)
    }

    @Test func ipv6LoopbackGetsABracketedBaseURL() async throws {
        let emulator: RunningEmulator
        do {
            emulator = try await Emulator.start(EmulatorConfiguration(host: "::1"))
        } catch let error as AuthError where error.code == .invalidConfiguration {
            // The machine has no IPv6 loopback; nothing more to check here.
            return
        }
        await emulator.stop()
        // No HTTP round trip here: swift-corelibs-foundation's URLSession rejects IPv6 literal
        // URLs (URLError -1000) on Linux, so only the address form is checked.
        #expect(emulator.port > 0)
        #expect(emulator.baseURL.absoluteString == "http://[::1]:\(emulator.port)")
        #expect(emulator.url("/auth0").absoluteString == "http://[::1]:\(emulator.port)/auth0")
    }
}
