import AuthHubEmulator
import Testing

@Suite struct EmulatorStateTests {
    struct Users: Sendable, Equatable { var emails: [String] = [] }
    static let users = EmulatorStateKey(module: "auth0", name: "users", initial: Users())
    static let codes = EmulatorStateKey(module: "firebase", name: "codes", initial: [String]())

    @Test func slotsStartAtTheirInitialValueAndKeepWrites() async {
        let state = EmulatorState()
        #expect(await state.get(Self.users) == Users())
        await state.update(Self.users) { $0.emails.append("a@example.com") }
        await state.set(Self.codes, to: ["c1"])
        #expect(await state.get(Self.users).emails == ["a@example.com"])
        #expect(await state.get(Self.codes) == ["c1"])
    }

    @Test func resetModuleClearsOnlyThatModule() async {
        let state = EmulatorState()
        await state.update(Self.users) { $0.emails.append("a@example.com") }
        await state.set(Self.codes, to: ["c1"])
        await state.reset(module: "auth0")
        #expect(await state.get(Self.users) == Users())
        #expect(await state.get(Self.codes) == ["c1"])
        await state.reset()
        #expect(await state.get(Self.codes) == [])
        #expect(await state.resets == 1)
    }

    @Test func aThrowingUpdateLeavesTheValueUnchanged() async {
        struct Refused: Error {}
        let state = EmulatorState()
        await state.set(Self.codes, to: ["keep"])
        await #expect(throws: Refused.self) {
            try await state.update(Self.codes) { codes in
                codes.append("lost")
                throw Refused()
            }
        }
        #expect(await state.get(Self.codes) == ["keep"])
    }
}
