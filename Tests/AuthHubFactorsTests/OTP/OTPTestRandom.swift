import AuthHub

/// A `RandomSource` for OTP and recovery-code tests: hands out scripted bytes in order (then zeros,
/// or a counter pattern when no script is given) and records every request, so a test knows exactly
/// which bytes a secret, code or salt was made of.
final class OTPTestRandom: RandomSource {
    private struct State {
        var script: [UInt8]
        var next = 0
        var counter: UInt8 = 0
        var requests: [Int] = []
    }

    private let state: Mutex<State>
    private let shortBy: Int

    /// - Parameters:
    ///   - script: bytes to return first; after them, an incrementing counter pattern.
    ///   - shortBy: return this many bytes fewer than asked (to test misbehaving sources).
    init(_ script: [UInt8] = [], shortBy: Int = 0) {
        state = Mutex(State(script: script))
        self.shortBy = shortBy
    }

    /// The byte counts asked for, in order.
    var requests: [Int] { state.withLock { $0.requests } }

    func bytes(_ count: Int) -> [UInt8] {
        state.withLock { s in
            s.requests.append(count)
            var out: [UInt8] = []
            for _ in 0..<max(0, count - shortBy) {
                if s.next < s.script.count {
                    out.append(s.script[s.next])
                    s.next += 1
                } else {
                    out.append(s.counter)
                    s.counter &+= 1
                }
            }
            return out
        }
    }
}
