import AuthHub
@testable import AuthHubTurnkey
import Foundation
import Testing

/// Outside input to the Turnkey module: a huge base58 bundle (quadratic decoding held a core for
/// minutes) and a session JWT whose `exp` is no date.
extension TurnkeyCryptoTests {
    @Test func aHugeBase58TextIsRefusedBeforeDecoding() throws {
        let huge = String(repeating: "z", count: 1_000_000)
        let started = ContinuousClock.now
        let error = #expect(throws: AuthError.self) { try Base58Check.decodeBase58(huge) }
        #expect(error?.code == .invalidToken)
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(try Base58Check.decodeBase58("2g") == [0x61])
    }

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
