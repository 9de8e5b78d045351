import AuthHub
@_spi(Internals) @testable import AuthHubTurnkey
import Foundation
import Testing

/// Outside input to the Turnkey module: a session JWT whose `exp` is no date (a huge base58 bundle:
/// `TurnkeyCryptoTests.hugeBase58TextIsRefusedNotDecodedForHours`).
extension TurnkeyCryptoTests {
    @Test func aSessionJWTWhoseExpIsNoDateIsRefused() throws {
        let key = "0399fe2ace6208af0adf848f44bc48210b594b7e69ecd91ec968fd75b3bb448336"
        for exp in [1e300, -1e300] {
            var claims = TK.claims(publicKey: key, exp: Date(timeIntervalSince1970: 1_700_000_000))
            claims["exp"] = .number(exp)
            let error = #expect(throws: AuthError.self) { try TurnkeySessionJWT(Secret(TK.jwt(claims))) }
            #expect(error?.code == .invalidToken)
            #expect(error?.message.contains("exp") == true)
        }
    }
}
