import enum AuthHub.JSONValue
import HTTPTypes
import Hummingbird

/// A provider's refusal that renders itself as that provider's error reply.
///
/// A handler throws it and Hummingbird's router answers with ``response(from:context:)``
/// (Hummingbird's `HTTPResponseError`), so no handler converts failures by hand. The default
/// reply is ``EmulatorResponse/json(_:status:headers:)`` of ``body`` with ``status`` and
/// ``headers``; a provider whose replies carry more (Auth0's `Cache-Control`) renders its own.
///
/// An error a handler did not foresee is not one of these: ``EmulatorFailureMiddleware`` turns it
/// into the provider's ``internalError``.
protocol EmulatorFailure: HTTPResponseError, Sendable {
    /// The JSON body.
    var body: JSONValue { get }
    /// Extra header fields of the reply. Default: none.
    var headers: HTTPFields { get }
    /// The provider's `500` for an error the handlers did not foresee, never carrying request data.
    static var internalError: Self { get }
}

extension EmulatorFailure {
    var headers: HTTPFields { [:] }

    /// The reply: ``body`` as JSON with ``status`` and ``headers``.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        EmulatorResponse.json(body, status: status, headers: headers)
    }
}
