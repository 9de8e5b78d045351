@testable import AuthHub
import Crypto
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
            let decoded = try? Self.decoder().decode(Session.self, from: data)
            // On purpose stricter than `Decodable` in one rule: a date outside 1970–9999 is refused (it
            // would trap a later conversion to Int, e.g. when the session is shown).
            let expected = decoded.flatMap { session in
                [session.expiresAt, session.issuedAt].compactMap { $0 }
                    .allSatisfy { SessionTimeLimits.isValidDate($0.timeIntervalSince1970) } ? session : nil
            }
            if decoded != nil, expected == nil { #expect(label.hasSuffix("At = #3") || label.hasSuffix("At = #11"), "\(label)") }
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

/// The file store writes sessions with `StoredSessionWriter` and `JSONValue.serialized()`; the
/// bytes must be those `JSONEncoder` writes for `Session` (sorted keys, seconds since 1970), so
/// files stay readable by every build and nothing is lost or renamed.
@Suite struct StoredSessionWriterTests {
    static func sessions() -> [Session] {
        [
            Session(providerID: "auth0", accessToken: Secret("at")),
            Session(providerID: "firebase", accountKey: "a/b \"q\"", accessToken: Secret("at-é/x"), tokenType: "Bearer",
                    idToken: Secret("id.tok.en"), refreshToken: Secret("rt"), expiresAt: Date(timeIntervalSince1970: 1_767_225_600),
                    scope: "openid", userID: "u-1", claims: ["email": "a@example.com", "n": 1.5, "big": 1e20, "l": ["x", nil, true]],
                    extras: ["org": ["id": "o-1", "tags": []]], secretExtras: ["sk": Secret("k"), "a": Secret("")],
                    version: 42, issuedAt: Date(timeIntervalSince1970: 1_767_220_000.123456)),
            Session(providerID: "turnkey", accessToken: Secret(""), expiresAt: Date(timeIntervalSince1970: 0.5), version: 1 << 53),
        ]
    }

    @Test func writesTheBytesJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        for session in Self.sessions() {
            let tree = try #require(StoredSessionWriter.tree(session))
            let ours = try tree.serialized()
            let theirs = try encoder.encode(session)
            #expect(ours == theirs, "\(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
            let back = try StoredSessionReader.session(from: tree, at: [])
            #expect(back == session)
            #expect(back.secretExtras.mapValues { $0.revealed() } == session.secretExtras.mapValues { $0.revealed() })
        }
    }

    @Test func aVersionBeyondJSONNumbersIsRefusedNotRounded() throws {
        var session = Session(providerID: "auth0", accessToken: Secret("at"))
        session.version = (1 << 53) + 1
        #expect(StoredSessionWriter.tree(session) == nil)
        let format = try SessionFileFormat(encryptionKey: nil)
        let key = SessionKey(provider: "auth0", account: "default")
        let error = #expect(throws: AuthError.self) { try format.encode(session, for: key, name: SessionFileName(key)) }
        #expect(error?.code == .storageFailure)
        #expect(error?.message.contains("9007199254740993") == true)
    }

    /// What the store wrote before it had its own writer: `Session`'s `Encodable` through
    /// `JSONEncoder` (sorted keys, seconds since 1970) in the envelope, sealed with AES-256-GCM
    /// under the file name when `key` is given.
    static func referenceFile(_ session: Session, for sessionKey: SessionKey, name: SessionFileName, key: SymmetricKey?) throws -> Data {
        struct Envelope: Encodable {
            var format = "authhub.session"
            var version = 1
            var key: SessionKey
            var session: Session?
            var cipher: String?
            var sealed: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        var envelope = Envelope(key: sessionKey)
        if let key {
            let box = try AES.GCM.seal(try encoder.encode(session), using: key, authenticating: name.authenticatedData)
            envelope.cipher = "AES-256-GCM"
            envelope.sealed = try #require(box.combined).base64EncodedString()
        } else {
            envelope.session = session
        }
        return try encoder.encode(envelope)
    }

    @Test(arguments: [false, true])
    func theFileFormatIsUnchanged(encrypted: Bool) throws {
        let secret: Secret<String>? = encrypted ? Secret(Data(repeating: 7, count: 32).base64EncodedString()) : nil
        let symmetric = encrypted ? SymmetricKey(data: Data(repeating: 7, count: 32)) : nil
        let format = try SessionFileFormat(encryptionKey: secret)
        for session in Self.sessions() {
            let key = SessionKey(provider: session.providerID, account: session.accountKey)
            let name = SessionFileName(key)
            let written = try format.encode(session, for: key, name: name)
            let reference = try Self.referenceFile(session, for: key, name: name, key: symmetric)
            if !encrypted { #expect(written == reference) }  // sealed boxes differ by their random nonce
            let read = try format.decode(written, path: "p", name: name, expecting: key)
            #expect(read == session)
            #expect(try format.decode(reference, path: "p", name: name, expecting: key) == read)
        }
    }
}
