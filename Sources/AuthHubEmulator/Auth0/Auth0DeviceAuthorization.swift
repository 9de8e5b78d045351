import Foundation

/// A pending device authorization (RFC 8628), opened by `POST /oauth/device/code` and kept under
/// the SHA-256 digest of its `device_code` (``Auth0Tenant/digest(_:)``).
///
/// Its life: `pending` until the user approves or denies it on the verification page
/// (`/activate`) or through the emulator-only hooks; the device polls `POST /oauth/token` with
/// the device-code grant meanwhile. An approved authorization is spent by the one exchange that
/// issues its tokens; a denied one keeps answering `access_denied`; every one answers
/// `expired_token` from `expiresAt` on (and is dropped an hour later).
struct Auth0DeviceAuthorization: Sendable {
    /// What the user decided.
    enum Status: Sendable, Equatable {
        case pending
        /// Approved by the user `userId`, who gave credentials (or had a browser session from
        /// a login) at `authTime`.
        case approved(userId: String, authTime: Date)
        case denied
    }

    /// The client that asked for the device code; only it may poll.
    var clientId: String
    /// The requested scopes, in request order (the tenant's default scope when none was sent).
    var scopes: [String]
    /// The requested `audience`, if any.
    var audience: String?
    /// The user code, normalized: the 8 letters without the dash (``Auth0DeviceAuthorization/normalizedUserCode(_:)``).
    var userCode: String
    var expiresAt: Date
    /// The interval the device must leave between two polls, in seconds: ``Auth0Service/deviceInterval``
    /// at first, 5 s more after each `slow_down` (RFC 8628, section 3.5).
    var interval: TimeInterval
    /// When the device last polled (nil before its first poll).
    var lastPoll: Date?
    var status: Status = .pending

    /// The 20 consonants user codes are drawn from (RFC 8628, section 6.1: no vowels, so no words
    /// are spelled by accident; no digits, so none is mistaken for a letter).
    static let alphabet: [Character] = Array("BCDFGHJKLMNPQRSTVWXZ")
    /// The letters in a user code.
    static let userCodeLength = 8
    /// The longest typed user code the emulator looks at (anything longer is wrong).
    static let maximumTypedLength = 64

    /// A user code as typed, reduced to the form it is stored in: upper-cased, with every
    /// character outside ``alphabet`` (the dash, spaces) dropped, so `wdjb-mjht`, `WDJB MJHT` and
    /// `WDJBMJHT` are the same code (RFC 8628, section 6.1); nil when the result is not 8 letters
    /// or the text is longer than ``maximumTypedLength``.
    static func normalizedUserCode(_ typed: String) -> String? {
        guard typed.utf8.count <= maximumTypedLength else { return nil }
        let letters = String(typed.uppercased().filter { alphabet.contains($0) })
        return letters.count == userCodeLength ? letters : nil
    }

    /// The user code as shown: `XXXX-XXXX`.
    static func displayed(_ normalized: String) -> String {
        String(normalized.prefix(4)) + "-" + String(normalized.dropFirst(4))
    }

    /// A fresh user code (normalized) from 16 random bytes: each letter is a 16-bit value modulo
    /// 20 (a bias of 16 in 65 536, which does not matter for an emulator), about 34.5 bits in all.
    static func generateUserCode(_ bytes: [UInt8]) -> String {
        var code = ""
        for index in 0..<userCodeLength {
            let high = index * 2 < bytes.count ? Int(bytes[index * 2]) : 0
            let low = index * 2 + 1 < bytes.count ? Int(bytes[index * 2 + 1]) : 0
            code.append(alphabet[(high << 8 | low) % alphabet.count])
        }
        return code
    }
}

/// One page of the verification flow at `/activate`, kept under the digest of the page's own
/// token (its hidden `transaction` field): the token only that page was given, so a form posted
/// from anywhere else does nothing (the emulator's CSRF protection).
struct Auth0DeviceActivation: Sendable {
    enum Page: Sendable {
        /// The page that asks for the user code.
        case enterCode
        /// The consent page: approve or deny the device with `deviceDigest` as `userId`.
        case consent(deviceDigest: String, userId: String, authTime: Date)
    }

    var page: Page
    var expiresAt: Date
    /// Wrong user codes entered on this page so far (see ``Auth0Service/wrongCodesPerPage``).
    var wrongCodes = 0
}
