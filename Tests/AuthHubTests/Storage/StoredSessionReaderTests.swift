@testable import AuthHub
import Foundation
import Testing

/// The file store reads sessions from one parse of the file (`StoredSessionReader`) instead of
/// `JSONDecoder`; it must accept and refuse exactly what `Session`'s `Decodable` does with
/// seconds-since-1970 dates, so files written by any build stay readable and damaged ones are
/// still refused.
@Suite struct StoredSessionReaderTests {
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// A full session's JSON object as the store writes it.
    static func full() throws -> [String: JSONValue] {
        let session = Session(providerID: "auth0", accountKey: "work", accessToken: Secret("at-1"), tokenType: "DPoP",
                              idToken: Secret("id-1"), refreshToken: Secret("rt-1"),
                              expiresAt: Date(timeIntervalSince1970: 1_767_225_600.123456), scope: "openid email",
                              userID: "auth0|1", claims: ["email": "a@example.com", "n": 1.5, "tags": ["x", true, nil]],
                              extras: ["org": ["id": "o-1"]], secretExtras: ["sk": Secret("key-1")], version: 7,
                              issuedAt: Date(timeIntervalSince1970: 1_767_220_000.5))
        return try #require(try JSONValue.parse(encoder().encode(session)).objectValue)
    }

    /// Variants of a valid session object: fields removed, nulled, retyped.
    static func variants() throws -> [(String, JSONValue)] {
        let base = try full()
        var cases: [(String, JSONValue)] = [("full", .object(base))]
        let replacements: [JSONValue] = [.null, .string("x"), .number(3), .number(-1), .number(2.5), .bool(true),
                                         .array([]), .object([:]), .object(["k": .string("v")]), .object(["k": .number(1)]),
                                         .object(["k": .null]), .number(9_007_199_254_740_993)]
        for field in base.keys.sorted() {
            var removed = base
            removed[field] = nil
            cases.append(("without \(field)", .object(removed)))
            for (index, replacement) in replacements.enumerated() {
                var changed = base
                changed[field] = replacement
                cases.append(("\(field) = #\(index)", .object(changed)))
            }
        }
        var extra = base
        extra["unknownField"] = .string("ignored")
        cases.append(("unknown field", .object(extra)))
        cases.append(("array", .array([.object(base)])))
        cases.append(("string", .string("session")))
        return cases
    }

    @Test func agreesWithSessionDecodable() throws {
        for (label, value) in try Self.variants() {
            let data = try JSONEncoder().encode(value)
            let expected = try? Self.decoder().decode(Session.self, from: data)
            let read = try? StoredSessionReader.session(from: value, at: ["session"])
            #expect(read == expected, "\(label)")
            if let expected {
                // Every field, not only those in Session's equality.
                #expect(read?.accessToken.revealed() == expected.accessToken.revealed(), "\(label)")
                #expect(read?.refreshToken?.revealed() == expected.refreshToken?.revealed(), "\(label)")
                #expect(read?.idToken?.revealed() == expected.idToken?.revealed(), "\(label)")
                #expect(read?.secretExtras.mapValues { $0.revealed() } == expected.secretExtras.mapValues { $0.revealed() }, "\(label)")
                #expect(read?.expiresAt == expected.expiresAt, "\(label)")
                #expect(read?.issuedAt == expected.issuedAt, "\(label)")
                #expect(read?.version == expected.version, "\(label)")
                #expect(read?.claims == expected.claims, "\(label)")
            }
        }
    }

    @Test func versionAloneIsReadWithTheSameRules() throws {
        for (label, value) in try Self.variants() {
            let data = try JSONEncoder().encode(value)
            let decoded = try? Self.decoder().decode(VersionOnly.self, from: data)
            let read = try? StoredSessionReader.version(from: value, at: [])
            #expect(read == decoded?.version, "\(label)")
        }
    }

    private struct VersionOnly: Decodable { var version: UInt64 }

    @Test func failuresNameTheFieldAndNeverAValue() throws {
        var object = try Self.full()
        object["accessToken"] = nil
        object["refreshToken"] = .number(1)
        let missing = #expect(throws: StoredSessionReader.Failure.self) {
            try StoredSessionReader.session(from: .object(object), at: ["session"])
        }
        #expect(missing?.description == "missing field at session.accessToken")

        object = try Self.full()
        object["secretExtras"] = .object(["sk": .number(1)])
        let wrong = #expect(throws: StoredSessionReader.Failure.self) {
            try StoredSessionReader.session(from: .object(object), at: [])
        }
        #expect(wrong?.description == "wrong type at secretExtras.sk")

        object = try Self.full()
        object["version"] = .number(-3)
        let invalid = #expect(throws: StoredSessionReader.Failure.self) {
            try StoredSessionReader.version(from: .object(object), at: ["session"])
        }
        #expect(invalid?.description == "invalid value at session.version")

        object = try Self.full()
        object["tokenType"] = .null
        let null = #expect(throws: StoredSessionReader.Failure.self) {
            try StoredSessionReader.session(from: .object(object), at: ["session"])
        }
        #expect(null?.description == "missing value at session.tokenType")
        #expect(!(null?.description.contains("at-1") ?? true))
    }
}
