import AuthHub
import Foundation

/// The JSON reply of a device authorization endpoint (RFC 8628, section 3.2): `device_code`,
/// `user_code`, `verification_uri` (Google's older `verification_url` is read too),
/// `verification_uri_complete`, `expires_in` and `interval` (numbers or numeric strings).
///
/// Decoding only reads the fields; ``DeviceAuthorization`` checks their values (required fields,
/// lengths, URLs, the lifetime and interval ranges).
package struct OIDCDeviceAuthorizationReply: Decodable, Sendable {
    package var deviceCode: String?
    package var userCode: String?
    package var verificationURI: String?
    package var verificationURIComplete: String?
    package var expiresIn: Double?
    package var interval: Double?

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code", userCode = "user_code", verificationURI = "verification_uri"
        case verificationURL = "verification_url", verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in", interval
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deviceCode = try container.decodeIfPresent(String.self, forKey: .deviceCode)
        userCode = try container.decodeIfPresent(String.self, forKey: .userCode)
        verificationURI = try container.decodeIfPresent(String.self, forKey: .verificationURI)
            ?? container.decodeIfPresent(String.self, forKey: .verificationURL)
        verificationURIComplete = try container.decodeIfPresent(String.self, forKey: .verificationURIComplete)
        expiresIn = try Self.seconds(container, .expiresIn)
        interval = try Self.seconds(container, .interval)
    }

    /// A number of seconds as a number or a numeric string; nil when absent or null. Its range is
    /// checked by ``DeviceAuthorization``.
    static func seconds(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Double? {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
        if let number = try? container.decode(Double.self, forKey: key) { return number }
        if let text = try? container.decode(String.self, forKey: key), let number = Double(text.trimmingCharacters(in: .whitespaces)) {
            return number
        }
        throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a number of seconds")
    }
}
