import AsyncHTTPClient
import AuthHub
@testable import AuthHubAsyncHTTPClient
import AuthHubTesting
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

/// What only the AsyncHTTPClient transport has: clients shared or owned, shutdown, the header
/// mapping and the error classification.
@Suite struct AsyncHTTPClientTransportTests {
    static func okServer() throws -> ScriptedUpstream {
        try ScriptedUpstream { request in .reply(status: request.path == "/start" ? 302 : 200, headers: [("Location", "/end")],
                                                  body: Data("ok".utf8)) }
    }

    @Test func anOwnedClientShutsDownOnceAndRefusesRequestsAfterwards() async throws {
        let upstream = try Self.okServer()
        defer { upstream.stop() }
        let transport = AsyncHTTPClientTransport(owningClientOn: MultiThreadedEventLoopGroup.singleton)
        #expect(transport.ownsClient)
        let reply = try await transport.send(.get, upstream.baseURL.appendingPathComponent("x"))
        #expect(reply.status == 200 && reply.body == Data("ok".utf8))
        try await transport.shutdown()
        try await transport.shutdown()  // idempotent
        let error = await #expect(throws: TransportError.self) { try await transport.send(.get, upstream.baseURL.appendingPathComponent("x")) }
        #expect(error?.kind == .other, "\(String(describing: error))")
    }

    /// A transport with its own client dropped without `shutdown()`: AsyncHTTPClient traps in debug
    /// builds when a running client is released, so reaching the end of this test (in a debug build)
    /// shows the client was shut down on release.
    @Test func aForgottenShutdownDoesNotCrash() async throws {
        let upstream = try Self.okServer()
        defer { upstream.stop() }
        for _ in 0..<3 {
            let transport = AsyncHTTPClientTransport(owningClientOn: MultiThreadedEventLoopGroup.singleton)
            #expect(try await transport.send(.get, upstream.baseURL.appendingPathComponent("x")).status == 200)
        }
        // The released clients shut down in the background; a request after that still works.
        #expect(try await AsyncHTTPClientTransport().send(.get, upstream.baseURL.appendingPathComponent("x")).status == 200)
    }

    /// Runs `body` with a client of the test's own and shuts the client down whatever `body` does:
    /// a client released while running traps in AsyncHTTPClient's debug builds ("Client not shut
    /// down before the deinit"), and an `#expect(try await …)` that throws leaves the test early,
    /// past a `shutdown()` written at its end. That is how one failed request in a loaded full run
    /// took the whole test process down with signal 4.
    static func withClient(_ configuration: HTTPClient.Configuration,
                           _ body: (HTTPClient) async throws -> Void) async throws {
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let outcome: Result<Void, any Error>
        do { try await body(client); outcome = .success(()) } catch { outcome = .failure(error) }
        try? await client.shutdown()
        try outcome.get()
    }

    /// Owned transports dropped in every state — idle, while a request is held by a silent server,
    /// after a cancelled request, after a `shutdown()` from a cancelled task — many times, while other
    /// requests run. A client released without a shutdown traps in a debug build, so reaching the end
    /// shows every release shut its client down.
    @Test func ownedTransportsDroppedInEveryStateNeverTrap() async throws {
        let upstream = try Self.okServer()
        defer { upstream.stop() }
        let silent = try ScriptedUpstream { _ in .silent }
        defer { silent.stop() }
        let load = Task {
            let shared = AsyncHTTPClientTransport()
            for _ in 0..<200 { _ = try? await shared.send(.get, upstream.baseURL.appendingPathComponent("x")) }
        }
        for round in 0..<25 {
            // Idle.
            _ = AsyncHTTPClientTransport(owningClientOn: MultiThreadedEventLoopGroup.singleton)
            // Mid-request: the task holding it is cancelled while the server holds the request.
            do {
                let transport = AsyncHTTPClientTransport(owningClientOn: MultiThreadedEventLoopGroup.singleton)
                let request = Task { try await transport.send(.get, silent.baseURL.appendingPathComponent("hold"), timeout: .seconds(30)) }
                try await Task.sleep(for: .milliseconds(5))
                request.cancel()
                _ = await request.result
            }
            // After a request that completed, and one that was cancelled before it started.
            do {
                let transport = AsyncHTTPClientTransport(owningClientOn: MultiThreadedEventLoopGroup.singleton)
                _ = try? await transport.send(.get, upstream.baseURL.appendingPathComponent("x"))
                let cancelled = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await transport.send(.get, upstream.baseURL.appendingPathComponent("x"))
                }
                _ = await cancelled.result
            }
            // A shutdown started from a task that is cancelled at once, then the transport dropped.
            do {
                let transport = AsyncHTTPClientTransport(owningClientOn: MultiThreadedEventLoopGroup.singleton)
                let stopping = Task { try await transport.shutdown() }
                if round.isMultiple(of: 2) { stopping.cancel() }
                _ = await stopping.result
            }
        }
        _ = await load.result
        // Give background shutdowns a moment to finish (a trap would end the process meanwhile).
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await AsyncHTTPClientTransport().send(.get, upstream.baseURL.appendingPathComponent("x")).status == 200)
    }

    @Test func anAppsClientIsSharedAndLeftRunning() async throws {
        let upstream = try Self.okServer()
        defer { upstream.stop() }
        try await Self.withClient(AsyncHTTPClientTransport.configuration()) { (client: HTTPClient) async throws in
        let first = AsyncHTTPClientTransport(client: client)
        let second = AsyncHTTPClientTransport(client: client, followRedirects: false)
        #expect(!first.ownsClient && first.client === client && second.client === client)
        #expect(try await first.send(.get, upstream.baseURL.appendingPathComponent("start")).status == 200)
        #expect(try await second.send(.get, upstream.baseURL.appendingPathComponent("start")).status == 302)
        try await first.shutdown()  // not its client: nothing happens
        #expect(try await second.send(.get, upstream.baseURL.appendingPathComponent("x")).status == 200)
        }
    }

    /// A client that follows redirects itself would apply AsyncHTTPClient's rules, not AuthHub's: the
    /// transport says so instead of returning what that produced.
    @Test func aClientThatFollowsRedirectsItselfIsReported() async throws {
        let upstream = try Self.okServer()
        defer { upstream.stop() }
        // A client with the default configuration follows redirects itself.
        try await Self.withClient(HTTPClient.Configuration()) { (client: HTTPClient) async throws in
        let transport = AsyncHTTPClientTransport(client: client)
        #expect(try await transport.send(.get, upstream.baseURL.appendingPathComponent("x")).status == 200)
        let error = await #expect(throws: TransportError.self) { try await transport.send(.get, upstream.baseURL.appendingPathComponent("start")) }
        #expect(error?.kind == .other)
        #expect(error?.message.contains("AsyncHTTPClientTransport.configuration()") == true, "\(String(describing: error))")
        }
    }

    @Test func theConfigurationTurnsOffRedirectsAndConnectionRetries() {
        var base = HTTPClient.Configuration()
        base.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 3
        let configuration = AsyncHTTPClientTransport.configuration(base)
        #expect(!configuration.connectionPool.retryConnectionEstablishment)
        #expect(configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 3)
        #expect(base.connectionPool.retryConnectionEstablishment)
    }

    @Test func headerFieldsMapBothWaysWithRepeatsInOrder() throws {
        var fields: HTTPFields = [.authorization: "Bearer t", .contentLength: "99", .contentType: "text/plain"]
        let custom = try #require(HTTPField.Name("X-Multi"))
        fields.append(HTTPField(name: custom, value: "1"))
        fields.append(HTTPField(name: custom, value: "2"))
        let headers = AsyncHTTPClientTransport.headers(fields)
        #expect(headers[canonicalForm: "x-multi"].map(String.init) == ["1", "2"])
        #expect(headers["Content-Length"].isEmpty)  // framed by AsyncHTTPClient from the body it is given
        #expect(headers.first(name: "authorization") == "Bearer t")

        let back = AsyncHTTPClientTransport.fields(HTTPHeaders([("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("X-A", "x"), ("bad name", "y")]))
        #expect(back[values: .setCookie] == ["a=1", "b=2"])
        #expect(back.count == 3)
    }

    /// Over the wire, repeated reply fields stay separate fields, in order (URLSession folds them
    /// into one, which the shared suite accepts; this transport does better).
    @Test func repeatedReplyFieldsStaySeparate() async throws {
        let upstream = try ScriptedUpstream { _ in
            .reply(status: 200, headers: [("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"), ("Set-Cookie", "b=2"), ("Vary", "A"), ("Vary", "B")])
        }
        defer { upstream.stop() }
        let reply = try await AsyncHTTPClientTransport().send(.get, upstream.baseURL.appendingPathComponent("x"))
        #expect(reply.headerFields[values: .setCookie] == ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"])
        #expect(reply.headerFields[values: .vary] == ["A", "B"])
    }

    @Test func errorsAreClassifiedLikeURLSessionTransport() {
        let cases: [(any Error, TransportError.Kind)] = [
            (HTTPClientError.deadlineExceeded, .timeout), (HTTPClientError.readTimeout, .timeout),
            (HTTPClientError.connectTimeout, .timeout), (HTTPClientError.remoteConnectionClosed, .connection),
            (HTTPClientError.cancelled, .cancelled), (CancellationError(), .cancelled),
            (ChannelError.connectTimeout(.seconds(1)), .timeout), (ChannelError.eof, .connection),
            (IOError(errnoCode: ECONNREFUSED, reason: "connect"), .connection),
            (NIOSSLError.handshakeFailed(.sslError([])), .tls), (NIOSSLError.uncleanShutdown, .tls),
            (HTTPClientError.invalidURL, .other), (TransportError(.responseTooLarge, "x"), .responseTooLarge),
        ]
        for (error, kind) in cases {
            let mapped = AsyncHTTPClientTransport.classify(error)
            #expect(mapped.kind == kind, "\(error) → \(mapped)")
        }
    }
}
