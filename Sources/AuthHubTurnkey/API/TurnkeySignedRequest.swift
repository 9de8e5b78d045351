import AuthHub
import Foundation

/// A Turnkey request whose body has been serialised once and stamped over exactly those bytes.
///
/// The only way to build one is ``sign(path:body:with:)`` (or ``sign(path:bodyBytes:with:)``), and
/// its bytes cannot be changed afterwards, so what is sent is always what was stamped: re-encoding
/// a body after signing — which would change the bytes and invalidate the stamp — cannot be
/// expressed.
public struct TurnkeySignedRequest: Sendable {
    /// The path relative to the API base URL (e.g. `public/v1/query/whoami`).
    public let path: String
    /// The exact body bytes that were stamped and will be sent.
    public let body: [UInt8]
    /// The stamp over ``body``.
    public let stamp: TurnkeyStampHeader

    private init(path: String, body: [UInt8], stamp: TurnkeyStampHeader) {
        self.path = path
        self.body = body
        self.stamp = stamp
    }

    /// Serialises `body` once (compact JSON, sorted keys) and stamps those bytes.
    /// - Throws: ``AuthErrorCode/invalidRequest`` if the body cannot be encoded, or the stamper's error.
    public static func sign(path: String, body: JSONValue, with stamper: any TurnkeyStamper) async throws -> TurnkeySignedRequest {
        try await sign(path: path, bodyBytes: try serialise(body), with: stamper)
    }

    /// Encodes a typed body once (compact JSON, sorted keys) and stamps those bytes.
    /// - Throws: ``AuthErrorCode/invalidRequest`` if the body cannot be encoded, or the stamper's error.
    public static func sign<Body: Encodable>(path: String, body: Body, with stamper: any TurnkeyStamper) async throws -> TurnkeySignedRequest {
        try await sign(path: path, bodyBytes: try serialise(body), with: stamper)
    }

    /// Stamps already-serialised body bytes.
    /// - Throws: the stamper's error.
    public static func sign(path: String, bodyBytes: [UInt8], with stamper: any TurnkeyStamper) async throws -> TurnkeySignedRequest {
        let stamp = try await stamper.stampHeader(bodyBytes)
        return TurnkeySignedRequest(path: path, body: bodyBytes, stamp: stamp)
    }

    /// The body as compact JSON with sorted keys and unescaped slashes.
    public static func serialise(_ body: JSONValue) throws -> [UInt8] {
        try encode(body)
    }

    /// A typed body as compact JSON with sorted keys and unescaped slashes.
    public static func serialise<Body: Encodable>(_ body: Body) throws -> [UInt8] {
        try encode(body)
    }

    private static func encode<Body: Encodable>(_ body: Body) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(body))
        } catch {
            throw AuthError(.invalidRequest, message: "The Turnkey request body could not be encoded.", underlying: error)
        }
    }
}
