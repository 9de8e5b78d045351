import AuthHub
import AuthHubWebCore
import Foundation
import HTTPTypes

extension WebConformanceCheck {
    func refresh(_ sid: String, csrf: String?) async throws -> WebConformanceReply {
        try await client.send(.post, "/refresh", cookies: [(sessionName, sid)], headers: [.origin: WebConformanceCheck.origin],
                              form: csrf.map { "csrf=\($0)" } ?? "")
    }

    func routeErrorsAnswerTheDocumentedWay() async throws -> [String] {
        var f = Failures()
        let sid = try await signIn()
        let token = try await csrf(sid)
        let ok = try await refresh(sid, csrf: token)
        f.expectStatus(ok, 303, "a renewal the app's form asked for")
        WebConformanceCheck.expectSecurityHeaders(ok, "the renewal's redirect", &f)
        f.expectStatus(try await refresh(sid, csrf: nil), 403, "a renewal without the CSRF token")
        // The provider revoked the refresh token: 401, the cookie cleared, the sentence shown.
        if let key = try await onlyKey(&f), let refreshToken = try await hub.store.load(key)?.refreshToken {
            try await environment.revokeRefreshToken(refreshToken)
        }
        let dead = try await refresh(sid, csrf: token)
        f.expectStatus(dead, 401, "a renewal with a revoked refresh token")
        f.expect(dead.cookie(sessionName) == "", "the 401 clears the cookie")
        f.expect(dead.body.contains("sign in again"), "the 401 says to sign in again: \(dead.body.debugDescription)")
        f.expect(dead.headers[.cacheControl] == "no-store", "the 401 is no-store")
        WebConformanceCheck.expectSecurityHeaders(dead, "the 401", &f)
        // The provider is down: 503, session and cookie kept.
        let other = try await signIn()
        let otherCSRF = try await csrf(other)
        await environment.stopProvider()
        let down = try await refresh(other, csrf: otherCSRF)
        f.expectStatus(down, 503, "a renewal with the provider down")
        f.expect(down.cookie(sessionName) == nil, "the 503 keeps the cookie")
        f.expect(try await hub.store.keys().count == 1, "the 503 keeps the session")
        // The mapping of every kind of error a route throws.
        let table: [(String, Int, Bool)] = [("sessionExpired", 401, true), ("noSession", 401, true), ("refreshTokenInvalid", 401, true),
                                            ("rateLimited", 503, false), ("network", 503, false), ("accessDenied", 403, false),
                                            ("mfaRequired", 403, false), ("requiresRecentLogin", 403, false), ("invalidRequest", 500, false),
                                            ("unknown", 500, false)]
        for (code, status, clears) in table {
            let reply = try await client.get("/fail?code=\(code)", cookies: [(sessionName, other)])
            f.expectStatus(reply, status, "a route's \(code) error")
            f.expect((reply.cookie(sessionName) == "") == clears, "\(code): the cookie is \(clears ? "cleared" : "kept")")
            f.expect(reply.headers[.cacheControl] == "no-store", "\(code): no-store")
            if status == 503 { f.expect(reply.headers[.retryAfter] == "7", "\(code): Retry-After from the error: \(reply.headers[.retryAfter] ?? "none")") }
            WebConformanceCheck.expectSecurityHeaders(reply, "a route's \(code) error", &f)
        }
        return f.messages
    }

    /// RFC 9449 at the adapter's bearer route: a DPoP-bound token with a proof made for the request
    /// as the client addressed it (method, `http://host:port/path`, the query left out) passes; the
    /// same proof again, a proof for another method, the token as `Bearer`, and no proof are refused
    /// with a `DPoP` challenge. (The adapter hands the web core the method, the Host and the path.)
    func dpopBoundTokensNeedTheirProof() async throws -> [String] {
        var f = Failures()
        guard let make = environment.dpopAccessToken else {
            return ["the environment gives no DPoP-bound token (WebConformanceEnvironment.dpopAccessToken)"]
        }
        let (token, key) = try await make()
        let url = client.baseURL.appendingPathComponent("api/me")
        func proof(_ method: String = "GET") throws -> String {
            try key.proof(method: method, url: url, accessToken: token, now: environment.clock.now).revealed()
        }
        let dpopField = HTTPField.Name("DPoP")!
        let first = try proof()
        let ok = try await client.get("/api/me?page=2", headers: [.authorization: "DPoP \(token.revealed())", dpopField: first])
        f.expectStatus(ok, 200, "a bound token with its proof (the query is not part of htu)")
        f.expect(ok.body.hasPrefix(provider + " "), "the route sees the provider and subject: \(ok.body.debugDescription)")
        let cases: [(String, HTTPFields)] = [
            ("the same proof again", [.authorization: "DPoP \(token.revealed())", dpopField: first]),
            ("a proof for POST", [.authorization: "DPoP \(token.revealed())", dpopField: try proof("POST")]),
            ("the bound token as Bearer", [.authorization: "Bearer \(token.revealed())", dpopField: try proof()]),
            ("no proof", [.authorization: "DPoP \(token.revealed())"]),
        ]
        for (name, headers) in cases {
            let refused = try await client.get("/api/me", headers: headers)
            f.expectStatus(refused, 401, name)
            let challenge = refused.headers[.wwwAuthenticate] ?? ""
            f.expect(challenge.hasPrefix("DPoP ") && challenge.contains("algs="), "\(name): a DPoP challenge: \(challenge.debugDescription)")
        }
        return f.messages
    }

    func bearerTokensGetEveryRFC6750Outcome() async throws -> [String] {
        var f = Failures()
        let token = try await environment.accessToken().revealed()
        for attempt in 1...2 {
            let ok = try await client.get("/api/me", headers: [.authorization: "Bearer \(token)"])
            f.expectStatus(ok, 200, "a valid token (\(attempt == 1 ? "verified" : "from the verified-token cache"))")
            f.expect(ok.body.hasPrefix(provider + " ") && ok.body.count > provider.count + 1, "the route sees the provider and subject: \(ok.body.debugDescription)")
        }
        f.expectStatus(try await client.get("/api/me", headers: [.authorization: "bearer   \(token)  "]), 200, "the scheme in any case, spaces around")
        f.expectStatus(try await client.get("/api/me"), 401, "no Authorization")
        func challenge(_ header: String, _ status: Int, _ error: String, _ what: String) async throws {
            let reply = try await client.get("/api/me", headers: [.authorization: header])
            f.expectStatus(reply, status, what)
            let value = reply.headers[.wwwAuthenticate] ?? ""
            f.expect(value.hasPrefix("Bearer realm=\"api\"") && value.contains("error=\"\(error)\""), "\(what): WWW-Authenticate \(value.debugDescription)")
            f.expect(reply.headers[.cacheControl] == "no-store", "\(what): no-store")
        }
        try await challenge("Basic dXNlcjpwYXNz", 401, "invalid_request", "another scheme")
        try await challenge("Bearer", 401, "invalid_request", "no token")
        try await challenge("Bearer a.b.c", 401, "invalid_token", "a malformed token")
        try await challenge("Bearer " + token.dropLast(2) + (token.hasSuffix("AA") ? "BB" : "AA"), 401, "invalid_token", "a tampered signature")
        try await challenge("Bearer " + String(repeating: "x", count: 20_000), 401, "invalid_token", "a 20 KB token")
        let parts = token.split(separator: ".")
        if parts.count == 3 {
            let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
            try await challenge("Bearer \(none).\(parts[1]).", 401, "invalid_token", "alg none")
        }
        let admin = try await client.get("/api/admin", headers: [.authorization: "Bearer \(token)"])
        f.expectStatus(admin, 403, "a token without the required scope")
        let value = admin.headers[.wwwAuthenticate] ?? ""
        f.expect(value.contains("error=\"insufficient_scope\"") && value.contains("scope=\"\(WebConformanceApp.adminScope)\""),
                 "insufficient_scope names the scope: \(value.debugDescription)")
        // Expired (past any leeway): refused, also when cached.
        environment.clock.advance(by: 3 * 86_400)
        try await challenge("Bearer \(token)", 401, "invalid_token", "an expired token")
        return f.messages
    }

    func bearerRoutesIgnoreTheSessionCookieUnlessOptedIn() async throws -> [String] {
        var f = Failures()
        let sid = try await signIn()
        let csrfToken = try await csrf(sid)
        let cookie = [(sessionName, sid)]
        f.expectStatus(try await client.get("/api/me", cookies: cookie), 401, "a bearer route with the cookie only (ambient authority refused)")
        f.expectStatus(try await client.get("/mixed/me", cookies: cookie), 200, "an opted-in route reads with the cookie")
        f.expectStatus(try await client.send(.post, "/mixed/transfer", cookies: cookie), 403, "a state change with the cookie only")
        f.expectStatus(try await client.send(.post, "/mixed/transfer", cookies: cookie, headers: [WebRequest.csrfHeader: "forged"]), 403,
                       "a state change with a wrong CSRF token")
        f.expectStatus(try await client.send(.post, "/mixed/transfer", cookies: cookie, headers: [WebRequest.csrfHeader: csrfToken]), 200,
                       "a state change with the CSRF token")
        let token = try await environment.accessToken().revealed()
        f.expectStatus(try await client.send(.post, "/mixed/transfer", headers: [.authorization: "Bearer \(token)"]), 200,
                       "a state change with a bearer token")
        return f.messages
    }

    func securityHeadersOnEveryResponse() async throws -> [String] {
        var f = Failures()
        let login = try await client.get("\(prefix)/login?provider=\(provider)")
        WebConformanceCheck.expectSecurityHeaders(login, "the login redirect", &f)
        let refused = try await client.get("\(prefix)/callback?code=x&state=y")
        f.expectStatus(refused, 400, "a callback without a sign-in")
        f.expect(refused.headers[.cacheControl] == "no-store", "a refused callback is no-store")
        WebConformanceCheck.expectSecurityHeaders(refused, "a refused callback", &f)
        WebConformanceCheck.expectSecurityHeaders(try await client.get("/page"), "an app page", &f)
        WebConformanceCheck.expectSecurityHeaders(try await client.get("/me"), "a guarded page's 401", &f)
        WebConformanceCheck.expectSecurityHeaders(try await client.get("/nowhere"), "a 404", &f)
        WebConformanceCheck.expectSecurityHeaders(try await client.get("/api/me", headers: [.authorization: "Bearer a.b.c"]), "a bearer challenge", &f)
        let framed = try await client.get("/framed")
        f.expect(framed.headers[HTTPField.Name("X-Frame-Options")!] == "SAMEORIGIN", "a route's own X-Frame-Options stands")
        let sid = try await signIn()
        let out = try await logout(sid, form: "csrf=\(try await csrf(sid))")
        WebConformanceCheck.expectSecurityHeaders(out, "the sign-out redirect", &f)
        return f.messages
    }

    func hostileRequestsGetCleanRefusals() async throws -> [String] {
        var f = Failures()
        let sid = try await signIn()
        // Many cookies, none the session's: no session, no crash.
        let junk = (0..<300).map { ("c\($0)", String(repeating: "v", count: 20)) }
        f.expectStatus(try await client.get("/me", cookies: junk), 401, "300 unrelated cookies")
        f.expectStatus(try await client.get("/me", cookies: junk + [(sessionName, sid)]), 200, "the session cookie after 300 others")
        // A callback flooded with parameters, and one with a huge code.
        let (pre, _, _) = try await begin()
        let flood = (0..<200).map { "state=s\($0)" }.joined(separator: "&")
        f.expectStatus(try await client.get("\(prefix)/callback?code=x&\(flood)", cookies: [(preName, pre)]), 400, "a callback with 200 states")
        let (pre2, _, _) = try await begin()
        f.expectStatus(try await client.get("\(prefix)/callback?state=x&code=" + String(repeating: "c", count: 16_000), cookies: [(preName, pre2)]),
                       400, "a callback with a 16 KB code")
        f.expectStatus(try await client.get("\(prefix)/callback", cookies: [(preName, String(repeating: "p", count: 4000))]), 400,
                       "a 4 KB pre-session cookie")
        // Sign-out forms that are not forms: JSON with the token, a token in the query.
        let csrfToken = try await csrf(sid)
        f.expectStatus(try await logout(sid, form: "", headers: [.contentType: "application/json"]), 403, "a JSON sign-out")
        f.expectStatus(try await client.send(.post, "\(prefix)/logout?csrf=\(csrfToken)", cookies: [(sessionName, sid)],
                                             headers: [.origin: WebConformanceCheck.origin]), 403, "the token in the query")
        f.expectStatus(try await me(sid), 200, "the session survives the hostile requests")
        return f.messages
    }
}
