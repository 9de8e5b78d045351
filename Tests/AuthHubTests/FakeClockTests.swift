import AuthHub
import AuthHubTesting
import Foundation
import Testing

@Suite struct FakeClockTests {
    /// Waits (by yielding, never sleeping) until the clock has `count` sleeps recorded.
    private func waitForSleepers(_ clock: FakeClock, count: Int) async {
        while clock.sleeps.count < count { await Task.yield() }
    }

    @Test func autoAdvanceMovesTimeAndRecordsSleeps() async throws {
        let clock = FakeClock()
        let start = clock.now
        try await clock.sleep(for: .seconds(2))
        try await clock.sleep(for: .milliseconds(500))
        #expect(clock.now.timeIntervalSince(start) == 2.5)
        #expect(clock.sleeps == [.seconds(2), .milliseconds(500)])
    }

    @Test func manualSleepersWakeWhenAdvancedOrSetPastTheirDeadline() async throws {
        let clock = FakeClock(mode: .manual)
        let start = clock.now
        let first = Task { try await clock.sleep(for: .seconds(10)) }
        await waitForSleepers(clock, count: 1)
        clock.advance(by: 5)
        let second = Task { try await clock.sleep(for: .seconds(100)) }
        await waitForSleepers(clock, count: 2)
        clock.advance(by: 5)
        try await first.value
        clock.set(start.addingTimeInterval(200))
        try await second.value
        #expect(clock.now == start.addingTimeInterval(200))
    }

    @Test func cancellingAManualSleepThrowsAtOnce() async throws {
        let clock = FakeClock(mode: .manual)
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        await waitForSleepers(clock, count: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }
}
