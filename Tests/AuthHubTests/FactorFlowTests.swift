import AuthHub
import Foundation
import Testing

@Suite struct FactorFlowTests {
    /// A code factor: start "sends" a code; confirm accepts only that code.
    struct CodeFactor: Factor {
        let kind: FactorKind = .emailCode
        let failStartFirst: Bool
        let attempts = Mutex(0)

        func start() async throws -> String {
            let n = attempts.withLock { $0 += 1; return $0 }
            if failStartFirst && n == 1 { throw AuthError(.network) }
            return "sent to a***@example.com"
        }

        func confirm(_ challenge: String, response: Secret<String>) async throws -> String {
            guard response.revealed() == "123456" else { throw AuthError(.invalidMFACode) }
            return "enrolled"
        }
    }

    /// A factor whose confirmation waits until the test opens the gate.
    struct GatedFactor: Factor {
        let kind: FactorKind = .totp
        let gate = AsyncStream<Void>.makeStream()
        let confirmations = Mutex(0)
        func start() async throws -> String { "scan the QR code" }
        func confirm(_ challenge: String, response: Secret<String>) async throws -> String {
            confirmations.withLock { $0 += 1 }
            for await _ in gate.stream { break }
            return "enrolled"
        }
    }

    /// A list that stays on screen: each change answers with the new list.
    struct ListFactor: Factor {
        let kind: FactorKind = "list"
        func start() async throws -> [String] { ["a", "b"] }
        func confirm(_ challenge: [String], response: String) async throws -> [String] {
            guard challenge.contains(response) else { throw AuthError(.invalidRequest, message: "no \(response)") }
            return challenge.filter { $0 != response }
        }
    }

    /// The repeating form: every confirmation yields the next challenge (never `completed`); a
    /// failure returns to the last challenge on retry.
    @Test func aRepeatingFlowGoesBackToTheChallengeAfterEachConfirmation() async throws {
        let flow = FactorFlow(repeating: ListFactor())
        let states = await flow.states()
        guard case .challenge(let first) = await flow.start() else { Issue.record("not a challenge"); return }
        #expect(first == ["a", "b"])
        guard case .challenge(let second) = await flow.confirm("a") else { Issue.record("not a challenge"); return }
        #expect(second == ["b"])
        #expect(await flow.confirm("z").name == "failed")
        guard case .challenge(let back) = await flow.retry() else { Issue.record("not back at the challenge"); return }
        #expect(back == ["b"], "retry returns to the last challenge, not the first")
        var names: [String] = []
        for await state in states {
            names.append(state.name)
            if names.count == 8 { break }
        }
        #expect(names == ["idle", "loading", "challenge", "confirming", "challenge", "confirming", "failed", "challenge"])
    }

    @Test func aSecondConfirmWhileOneIsInFlightChangesNothing() async throws {
        let factor = GatedFactor()
        let flow = FactorFlow(factor)
        let states = await flow.states()
        await flow.start()
        let first = Task { await flow.confirm(Secret("123456")) }
        var names: [String] = []
        var iterator = states.makeAsyncIterator()
        while let state = await iterator.next() {
            names.append(state.name)
            if state.name == "confirming" { break }
        }
        let second = await flow.confirm(Secret("654321"))
        #expect(second.name == "confirming")
        factor.gate.continuation.yield()
        let final = await first.value
        #expect(final.name == "completed")
        if let next = await iterator.next() { names.append(next.name) }
        #expect(names == ["idle", "loading", "challenge", "confirming", "completed"])
        #expect(factor.confirmations.withLock { $0 } == 1)
    }

    @Test func happyPathWalksEveryState() async throws {
        let flow = FactorFlow(CodeFactor(failStartFirst: false))
        let states = await flow.states()
        await flow.start()
        let final = await flow.confirm(Secret("123456"))
        guard case .completed(let output) = final else { Issue.record("not completed: \(final.name)"); return }
        #expect(output == "enrolled")
        var names: [String] = []
        for await s in states {
            names.append(s.name)
            if names.count == 5 { break }
        }
        #expect(names == ["idle", "loading", "challenge", "confirming", "completed"])
    }

    @Test func wrongCodeFailsThenRetryReturnsToTheChallenge() async throws {
        let flow = FactorFlow(CodeFactor(failStartFirst: false))
        await flow.start()
        let failed = await flow.confirm(Secret("000000"))
        guard case .failed(let error) = failed else { Issue.record("expected failed"); return }
        #expect(error.code == .invalidMFACode)
        let retried = await flow.retry()
        #expect(retried.name == "challenge")
        #expect(await flow.confirm(Secret("123456")).name == "completed")
    }

    @Test func failedStartRetriesTheStart() async throws {
        let factor = CodeFactor(failStartFirst: true)
        let flow = FactorFlow(factor)
        #expect(await flow.start().name == "failed")
        #expect(await flow.retry().name == "challenge")
        #expect(factor.attempts.withLock { $0 } == 2)
    }

    /// A factor whose first start is refused for a missing scope.
    struct StepUpFactor: Factor {
        let kind: FactorKind = .totp
        let starts = Mutex(0)
        func start() async throws -> String {
            let n = starts.withLock { $0 += 1; return $0 }
            if n == 1 { throw AuthError(.insufficientScope, details: ["requiredScope": "create:factors"]) }
            return "scan"
        }
        func confirm(_ challenge: String, response: Secret<String>) async throws -> String { "enrolled" }
    }

    @Test func aStepUpRefusalWaitsForResumeWithoutAHandler() async throws {
        let factor = StepUpFactor()
        let flow = FactorFlow(factor)
        let refused = await flow.start()
        #expect(refused.name == "reauthenticationRequired" && refused.error?.details["requiredScope"] == "create:factors")
        #expect(await flow.confirm(Secret("1")).name == "failed", "no challenge to confirm while interrupted")
        let flow2 = FactorFlow(StepUpFactor())
        await flow2.start()
        #expect(await flow2.resume().name == "challenge")
        #expect(await flow2.resume().name == "challenge", "resume outside the interruption changes nothing")
    }

    @Test func theHandlerRunsOnceAndAFailingHandlerFailsTheFlow() async throws {
        let calls = Mutex(0)
        let flow = FactorFlow(StepUpFactor()) { _ in calls.withLock { $0 += 1 } }
        #expect(await flow.start().name == "challenge" && calls.withLock { $0 } == 1)
        let failing = FactorFlow(StepUpFactor()) { _ in throw AuthError(.userCancelled) }
        let state = await failing.start()
        #expect(state.name == "failed" && state.error?.code == .userCancelled)
        #expect(await failing.retry().name == "challenge", "a retry after the failed step-up starts again")
    }

    @Test func observersThatWentAwayAreDropped() async throws {
        let flow = FactorFlow(CodeFactor(failStartFirst: false))
        do { _ = await flow.states() }   // dropped at once
        let kept = await flow.states()
        await flow.start()
        var iterator = kept.makeAsyncIterator()
        #expect(await iterator.next()?.name == "idle")
        #expect(await iterator.next()?.name == "loading")
        #expect(await iterator.next()?.name == "challenge")
    }

    @Test func confirmWithoutChallengeIsAnError() async throws {
        let flow = FactorFlow(CodeFactor(failStartFirst: false))
        let state = await flow.confirm(Secret("123456"))
        guard case .failed(let e) = state else { Issue.record("expected failed"); return }
        #expect(e.code == .invalidRequest)
    }
}

@Suite struct InProcessRefreshLockTests {
    @Test func excludesPerKeyAndServesInOrder() async throws {
        let lock = InProcessRefreshLock()
        let key = SessionKey(provider: "p")
        let inside = Mutex(0)
        let maxInside = Mutex(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await lock.withLock(key) {
                        let n = inside.withLock { $0 += 1; return $0 }
                        maxInside.withLock { $0 = max($0, n) }
                        await Task.yield()
                        inside.withLock { $0 -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(maxInside.withLock { $0 } == 1)
    }

    @Test func differentKeysDoNotBlockEachOther() async throws {
        let lock = InProcessRefreshLock()
        let gate = Gate()
        let holder = Task { try await lock.withLock(SessionKey(provider: "a")) { await gate.wait() } }
        while await gate.waiting == 0 { await Task.yield() }
        // While "a" is held, "b" is free.
        let value = try await lock.withLock(SessionKey(provider: "b")) { 42 }
        #expect(value == 42)
        await gate.open()
        try await holder.value
    }

    @Test func releasesWhenTheBodyThrows() async throws {
        let lock = InProcessRefreshLock()
        let key = SessionKey(provider: "p")
        await #expect(throws: AuthError.self) { try await lock.withLock(key) { throw AuthError(.network) } }
        #expect(try await lock.withLock(key) { 1 } == 1)
    }
}
