import AsyncHTTPClient
import AuthHub
@testable import AuthHubAsyncHTTPClient
import AuthHubTesting
import Foundation
import NIOPosix
import Testing

/// The transport under a conformance check.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `URLSessionTransport`, the reference.
    case urlSession
    /// `AsyncHTTPClientTransport` over the module's process-wide client.
    case asyncHTTPClient
    /// `AsyncHTTPClientTransport` with a client of its own, never shut down explicitly: its release
    /// shuts the client down (a forgotten shutdown must not trap in AsyncHTTPClient's deinit check).
    case asyncHTTPClientOwned

    var testDescription: String { rawValue }

    func make(_ settings: HTTPTransportConformance.Settings) -> any HTTPTransport {
        switch self {
        case .urlSession:
            URLSessionTransport(defaultTimeout: settings.defaultTimeout, followRedirects: settings.followRedirects,
                                maxResponseBytes: settings.maxResponseBytes)
        case .asyncHTTPClient:
            AsyncHTTPClientTransport(defaultTimeout: settings.defaultTimeout, followRedirects: settings.followRedirects,
                                     maxResponseBytes: settings.maxResponseBytes)
        case .asyncHTTPClientOwned:
            AsyncHTTPClientTransport(owningClientOn: MultiThreadedEventLoopGroup.singleton, defaultTimeout: settings.defaultTimeout,
                                     followRedirects: settings.followRedirects, maxResponseBytes: settings.maxResponseBytes)
        }
    }
}

/// One transport test suite, run against both transports: every check of `HTTPTransportConformance`
/// for `URLSessionTransport` and `AsyncHTTPClientTransport` (shared and owned client).
@Suite struct TransportConformanceTests {
    @Test(arguments: TransportUnderTest.allCases, HTTPTransportConformance.checkNames)
    func conforms(_ transport: TransportUnderTest, _ check: String) async {
        let failures = await HTTPTransportConformance { transport.make($0) }.run(only: [check])
        #expect(failures.isEmpty, "\(transport.rawValue): \(failures.joined(separator: "\n"))")
    }
}
