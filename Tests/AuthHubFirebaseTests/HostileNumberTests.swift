import AuthHub
import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// Time claims of a Firebase ID token (unsigned in emulator mode, so any reply can carry them) used
/// to trap `Int(iat)` when out of range.
extension FirebaseIDTokenVerifierTests {
    @Test func timeClaimsOutsideTheCalendarAreRejectedNotConverted() async throws {
        for value in [-1e300, 1e300] {
            await expectRejected(emulator, try FB.unsigned(claims(["exp": .number(value)])), reason: "exp")
            await expectRejected(emulator, try FB.unsigned(claims(["iat": .number(value)])), reason: "iat")
            await expectRejected(emulator, try FB.unsigned(claims(["auth_time": .number(value)])), reason: "auth_time")
        }
    }
}
