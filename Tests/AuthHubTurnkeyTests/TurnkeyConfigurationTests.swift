import AuthHub
@_spi(Internals) @testable import AuthHubTurnkey
import Foundation
import Testing

@Suite struct TurnkeyConfigurationTests {
    static let base = #""id": "tk", "type": "turnkey", "organizationId": "00000000-0000-4000-8000-000000000001", "rpId": "example.com", "proxyURL": "https://p.example.com""#

    static func entry(_ extra: String) throws -> ProviderConfiguration {
        let values = try #require(try JSONValue.parse(Data("{\(base)\(extra)}".utf8)).objectValue)
        return ProviderConfiguration(id: "tk", type: "turnkey", path: "providers[0]", values: values)
    }

    static func problems(_ extra: String) throws -> [String] {
        TurnkeyPlugin().validate(try entry(extra)).map(\.description)
    }

    @Test func newFieldsAreDeclared() {
        let names = TurnkeyPlugin().fields.map(\.name)
        #expect(names.contains("activityPollIntervalMilliseconds"))
        #expect(names.contains("activityPollAttempts"))
        #expect(names.contains("notarizerPublicKey"))
    }

    @Test func validation() throws {
        #expect(try Self.problems("") == [])
        #expect(try Self.problems(#", "activityPollIntervalMilliseconds": 250, "activityPollAttempts": 0, "notarizerPublicKey": "\#(TurnkeySessionJWT.productionNotarizerPublicKeyHex)""#) == [])
        #expect(try Self.problems(#", "notarizerPublicKey": "03bf162576eb8dfecf33d9275d09595284f6c4df0db6156c3c582777886a0ee0ac""#) == [])
        let bad = try Self.problems(#", "activityPollIntervalMilliseconds": 0, "activityPollAttempts": -1, "notarizerPublicKey": "04abcd""#)
        #expect(bad.count == 3)
        #expect(bad.contains { $0.contains("activityPollIntervalMilliseconds") && $0.contains("between 1 and 60000") })
        #expect(bad.contains { $0.contains("activityPollAttempts") && $0.contains("between 0 and 100") })
        #expect(bad.contains { $0.contains("notarizerPublicKey") && $0.contains("P-256") })
        #expect(try Self.problems(#", "activityPollIntervalMilliseconds": 60001, "activityPollAttempts": 101"#).count == 2)
        #expect(try Self.problems(#", "notarizerPublicKey": "zz""#).count == 1)
    }

    @Test func parsing() throws {
        let defaults = try TurnkeyConfiguration(try Self.entry(""))
        #expect(defaults.activityPollIntervalMilliseconds == 1000)
        #expect(defaults.activityPollAttempts == 3)
        #expect(defaults.notarizerPublicKey == nil)
        let set = try TurnkeyConfiguration(try Self.entry(#", "activityPollIntervalMilliseconds": 50, "activityPollAttempts": 7, "notarizerPublicKey": "0264fb511728122da3b7b8a449c79d7a9e3fb847f4cbf0efbc6c82f68ada0ae5eb""#))
        #expect(set.activityPollIntervalMilliseconds == 50)
        #expect(set.activityPollAttempts == 7)
        #expect(set.effectiveNotarizerPublicKeyHex == "0264fb511728122da3b7b8a449c79d7a9e3fb847f4cbf0efbc6c82f68ada0ae5eb")
        // No baseURL in the entry: production, so the production notarizer applies.
        #expect(defaults.effectiveNotarizerPublicKeyHex == TurnkeySessionJWT.productionNotarizerPublicKeyHex)
    }
}
