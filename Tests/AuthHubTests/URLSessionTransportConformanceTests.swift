import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// `URLSessionTransport` against the transport conformance suite, one test per check (the
/// AsyncHTTPClient transport runs the same suite in `AuthHubAsyncHTTPClientTests`); and the suite
/// itself against transports broken on purpose, so that every check is known to be able to fail.
@Suite struct URLSessionTransportConformanceTests {
    static let suite = HTTPTransportConformance { settings in
        URLSessionTransport(defaultTimeout: settings.defaultTimeout, followRedirects: settings.followRedirects,
                            maxResponseBytes: settings.maxResponseBytes)
    }

    @Test(arguments: HTTPTransportConformance.checkNames)
    func conforms(_ check: String) async {
        let failures = await Self.suite.run(only: [check])
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func checkNamesAreUnique() {
        #expect(HTTPTransportConformance.checkNames.count == 21)
        #expect(Set(HTTPTransportConformance.checkNames).count == HTTPTransportConformance.checkNames.count)
    }

    /// A transport that gets one thing wrong, on top of the real one.
    struct Broken: HTTPTransport {
        enum Flaw: Sendable { case everyErrorIsOther, leaksTheURL, dropsRepeatedFields, deadlinePerHop, ignoresCancellation }
        let inner: URLSessionTransport
        let flaw: Flaw

        func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
            switch flaw {
            case .everyErrorIsOther:
                do { return try await inner.send(request, body: body, timeout: timeout) } catch { throw TransportError(.other, "failed") }
            case .leaksTheURL:
                do { return try await inner.send(request, body: body, timeout: timeout) } catch {
                    throw TransportError((error as? TransportError)?.kind ?? .other, "failed: \(request.url?.absoluteString ?? "")")
                }
            case .dropsRepeatedFields:
                var deduplicated = request
                var seen = Set<HTTPField.Name>()
                deduplicated.headerFields = request.headerFields.filter { seen.insert($0.name).inserted }
                return try await inner.send(deduplicated, body: body, timeout: timeout)
            case .deadlinePerHop:
                // As if each read (or hop) had the deadline of its own: nothing stops a body that keeps
                // trickling (the check's trickle lasts 30 s) or a chain of quick redirects.
                return try await inner.send(request, body: body, timeout: .seconds(60))
            case .ignoresCancellation:
                return try await Task.detached { try await inner.send(request, body: body, timeout: .seconds(15)) }.value
            }
        }
    }

    static func broken(_ flaw: Broken.Flaw) -> HTTPTransportConformance {
        HTTPTransportConformance { settings in
            Broken(inner: URLSessionTransport(defaultTimeout: settings.defaultTimeout, followRedirects: settings.followRedirects,
                                              maxResponseBytes: settings.maxResponseBytes), flaw: flaw)
        }
    }

    @Test func aTransportThatFollowsNoRedirectsFails() async {
        let suite = HTTPTransportConformance { settings in
            URLSessionTransport(defaultTimeout: settings.defaultTimeout, followRedirects: false, maxResponseBytes: settings.maxResponseBytes)
        }
        let failures = await suite.run(only: ["redirectMethodRules", "credentialsStayOnTheirOrigin", "redirectLoopEnds"])
        for check in ["redirectMethodRules", "credentialsStayOnTheirOrigin", "redirectLoopEnds"] {
            #expect(failures.contains { $0.hasPrefix("[\(check)]") }, "\(failures)")
        }
    }

    @Test func aTransportWithoutTheCapFails() async {
        let suite = HTTPTransportConformance { settings in
            URLSessionTransport(defaultTimeout: settings.defaultTimeout, followRedirects: settings.followRedirects, maxResponseBytes: 1 << 40)
        }
        let checks = ["declaredLengthOverTheCapIsRefused", "streamedBodyOverTheCapIsCutOff", "bodyAtTheCapArrivesWhole"]
        let failures = await suite.run(only: Set(checks))
        for check in checks { #expect(failures.contains { $0.hasPrefix("[\(check)]") }, "\(failures)") }
    }

    /// A transport that re-sends every redirected request as it was (method, body, every header), as
    /// FoundationNetworking's own redirect handling and many clients do for 307/308: the password of a
    /// token request and a bearer token reach another origin, and the checks say so.
    struct NaiveRedirects: HTTPTransport {
        let inner: URLSessionTransport
        func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
            var request = request
            for _ in 0..<5 {
                let reply = try await inner.send(request, body: body, timeout: timeout)
                guard (300...399).contains(reply.status), let location = reply.headerFields[.location], let current = request.url,
                      let target = URL(string: location, relativeTo: current)?.absoluteURL else { return reply }
                request = HTTPRequest(method: request.method, url: target, headerFields: request.headerFields)
            }
            throw TransportError(.other, "too many redirects")
        }
    }

    @Test func forwardingCredentialsOnRedirectsFails() async {
        let suite = HTTPTransportConformance { settings in
            NaiveRedirects(inner: URLSessionTransport(defaultTimeout: settings.defaultTimeout, followRedirects: false,
                                                      maxResponseBytes: settings.maxResponseBytes))
        }
        let failures = await suite.run(only: ["bodyFollowsNoRedirect", "credentialsStayOnTheirOrigin"])
        #expect(failures.contains { $0.hasPrefix("[bodyFollowsNoRedirect]") && $0.contains("re-sent to another origin") }, "\(failures)")
        #expect(failures.contains { $0.hasPrefix("[credentialsStayOnTheirOrigin]") && $0.contains("re-sent to another origin") }, "\(failures)")
    }

    @Test func misclassifiedErrorsFail() async {
        let checks = ["refusedConnectionIsConnection", "resetOrClosedConnectionIsConnection", "silentServerTimesOutAtTheDeadline",
                      "cancelledBeforeSendingIsCancelled"]
        let failures = await Self.broken(.everyErrorIsOther).run(only: Set(checks))
        for check in checks { #expect(failures.contains { $0.hasPrefix("[\(check)]") }, "\(failures)") }
    }

    @Test func aLeakedURLFails() async {
        let failures = await Self.broken(.leaksTheURL).run(only: ["errorsHoldNoSecrets"])
        #expect(failures.contains { $0.contains("shows a secret") }, "\(failures)")
    }

    @Test func droppedRepeatedFieldsFail() async {
        let failures = await Self.broken(.dropsRepeatedFields).run(only: ["roundTripKeepsStatusFieldsAndBody"])
        #expect(failures.contains { $0.contains("X-Echo-Multi") }, "\(failures)")
    }

    @Test func aDeadlinePerReadFails() async {
        let failures = await Self.broken(.deadlinePerHop).run(only: ["deadlineIsTotalNotPerRead", "deadlineSpansRedirects"])
        #expect(failures.contains { $0.hasPrefix("[deadlineIsTotalNotPerRead]") }, "\(failures)")
        #expect(failures.contains { $0.hasPrefix("[deadlineSpansRedirects]") }, "\(failures)")
    }

    @Test func ignoredCancellationFails() async {
        let failures = await Self.broken(.ignoresCancellation).run(only: ["cancelledWhileWaitingIsCancelled"])
        #expect(!failures.isEmpty)
    }
}
