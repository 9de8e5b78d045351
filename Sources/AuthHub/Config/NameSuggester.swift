/// Finds the known name closest to a mistyped one, for "did you mean …?" hints.
enum NameSuggester {
    /// The closest candidate to `name`, or nil when none is close enough.
    ///
    /// Compares case-insensitively by edit distance (insertions, deletions, substitutions); a
    /// candidate qualifies when the distance is at most a third of the name's length (at least 1,
    /// at most 3). Ties go to the earlier candidate, so results are deterministic.
    static func closest(to name: String, in candidates: [String]) -> String? {
        let lowered = Array(name.lowercased())
        let threshold = min(3, max(1, lowered.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let d = distance(lowered, Array(candidate.lowercased()))
            if d <= threshold, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        return best?.candidate
    }

    /// Levenshtein distance with a two-row table.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
