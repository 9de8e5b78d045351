import enum AuthHub.JSONValue
import Foundation
import HTTPTypes
import Hummingbird

/// Builders for the JSON replies emulator routes send.
public enum EmulatorResponse {
    /// A JSON reply: `Content-Type: application/json; charset=utf-8`, keys sorted so replies are
    /// byte-for-byte repeatable.
    /// - Parameters:
    ///   - value: the body.
    ///   - status: the HTTP status (default 200).
    ///   - headers: extra header fields.
    public static func json(
        _ value: JSONValue,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail for finite numbers; a non-finite number (which JSON
        // cannot carry) degrades to a 500 with an empty object rather than a crash.
        let data: Data
        let finalStatus: HTTPResponse.Status
        if let encoded = try? encoder.encode(value) {
            data = encoded
            finalStatus = status
        } else {
            data = Data("{}".utf8)
            finalStatus = .internalServerError
        }
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: finalStatus,
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
