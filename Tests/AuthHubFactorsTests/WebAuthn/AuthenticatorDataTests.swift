import AuthHub
@testable import AuthHubFactors
import Crypto
import Foundation
import Testing

@Suite struct AuthenticatorDataTests {
    private let rpIDHash = Array(SHA256.hash(data: Data("example.com".utf8)))

    @Test func assertionDataRoundTrips() throws {
        let data = AuthenticatorData(rpIDHash: rpIDHash, flags: [.userPresent, .userVerified], signCount: 0x0102_0304)
        #expect(data.bytes.count == 37)
        #expect(Array(data.bytes[32...]) == [0x05, 0x01, 0x02, 0x03, 0x04])
        #expect(try AuthenticatorData(bytes: data.bytes) == data)
    }

    @Test func attestedCredentialAndExtensionsRoundTrip() throws {
        let key = COSEKey(p256: P256.Signing.PrivateKey().publicKey)
        let extensions = CBORValue.map([CBORMapEntry(.text("credProtect"), .int(2))])
        let data = AuthenticatorData(rpIDHash: rpIDHash, flags: [.userPresent], signCount: 7,
                                     attestedCredential: .init(aaguid: Array(repeating: 0xaa, count: 16), credentialID: [1, 2, 3],
                                                               publicKey: key),
                                     extensions: extensions)
        #expect(data.flags == [.userPresent, .attestedCredentialData, .extensionData])
        let parsed = try AuthenticatorData(bytes: data.bytes)
        #expect(parsed == data)
        #expect(parsed.attestedCredential?.publicKey == key)
        #expect(parsed.extensions?[text: "credProtect"] == .int(2))
    }

    @Test(arguments: [
        ("short", 36, UInt8(0x01), "at least 37"),
        ("AT without data", 37, UInt8(0x41), "truncated"),
        ("ED without data", 37, UInt8(0x81), "extensions"),
    ])
    func truncatedDataIsMalformed(label: String, length: Int, flags: UInt8, reason: String) {
        var bytes = rpIDHash + [flags, 0, 0, 0, 0]
        bytes = Array(bytes.prefix(length))
        let error = #expect(throws: AuthError.self, "\(label)") { try AuthenticatorData(bytes: bytes) }
        #expect(error?.code == .webAuthnMalformedResponse)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func leftoverBytesAndOversizedIDsAreMalformed() {
        let leftover = #expect(throws: AuthError.self) { try AuthenticatorData(bytes: rpIDHash + [0x01, 0, 0, 0, 1, 0xff]) }
        #expect(leftover?.message.contains("left over") == true)
        let longID = rpIDHash + [0x41, 0, 0, 0, 0] + Array(repeating: 0, count: 16) + [0x04, 0x00] + Array(repeating: 0, count: 1024)
        let oversized = #expect(throws: AuthError.self) { try AuthenticatorData(bytes: longID) }
        #expect(oversized?.message.contains("1023") == true)
    }
}
