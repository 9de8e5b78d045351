import AuthHub
@testable import AuthHubFactors
import Foundation
import Testing

@Suite struct CollectedClientDataTests {
    @Test func serialisesLikeABrowserAndParsesBack() throws {
        let data = CollectedClientData(type: CollectedClientData.getType, challenge: [0xfb, 0xff], origin: "https://a\"b\\c.example",
                                       crossOrigin: true, topOrigin: "https://top.example")
        let text = String(decoding: data.jsonBytes, as: UTF8.self)
        #expect(text == #"{"type":"webauthn.get","challenge":"-_8","origin":"https://a\"b\\c.example","crossOrigin":true,"topOrigin":"https://top.example"}"#)
        #expect(try CollectedClientData(json: data.jsonBytes) == data)
    }

    @Test(arguments: [
        ("[]", "not a JSON object"), ("nope", "not JSON"), (#"{"challenge":"AA","origin":"o"}"#, "type"),
        (#"{"type":"webauthn.get","challenge":"!!","origin":"o"}"#, "challenge"),
        (#"{"type":"webauthn.get","challenge":"AA"}"#, "origin"),
        (#"{"type":"webauthn.get","challenge":"AA","origin":"o","tokenBinding":{"status":"not-supported"}}"#, "tokenBinding"),
        (#"{"type":"webauthn.get","challenge":"AA","origin":"o","tokenBinding":{}}"#, "tokenBinding"),
    ])
    func malformedClientDataIsRejected(json: String, reason: String) {
        let error = #expect(throws: AuthError.self) { try CollectedClientData(json: Array(json.utf8)) }
        #expect(error?.code == .webAuthnMalformedResponse)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func tokenBindingFormsBrowsersAndU2FKeysSendAreAccepted() throws {
        for binding in [#"{"status":"present","id":"AA"}"#, #"{"status":"supported"}"#, #""unused""#] {
            let json = #"{"type":"webauthn.create","challenge":"AA","origin":"https://x.example","tokenBinding":"# + binding + "}"
            #expect(try CollectedClientData(json: Array(json.utf8)).challenge == [0])
        }
    }
}
