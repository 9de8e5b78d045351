import Foundation

/// A document fetched on demand and kept: the machinery AuthHub's public-key caches share
/// (AuthHubOIDC's `JWKSCache`, AuthHubFirebase's `FirebasePublicKeyCache`), each of which parses its
/// own document format into `Document`.
///
/// - **Fetched once, kept.** Nothing is fetched until a document is asked for; a document is kept
///   until its `expiresAt` (nil: kept until a caller needs something it lacks).
/// - **Refetched for what is missing, rate-limited.** When the kept document lacks what a caller
///   needs (a token names a `kid` the provider rotated in), it is fetched again, but not more often
///   than ``minimumRefetchInterval`` by the injected clock, so tokens with made-up `kid`s cannot make
///   AuthHub hammer the provider: inside the interval the kept document is returned as it is and the
///   caller finds what it wanted missing.
/// - **Single-flight.** Concurrent callers share one fetch. A failed fetch keeps the previous
///   document and throws the fetch's error to every caller that awaited it.
package actor KeyDocumentCache<Document: Sendable> {
    /// A fetched document and the time it stops being fresh (nil: never by time).
    package struct Fetched: Sendable {
        package var document: Document
        package var expiresAt: Date?

        package init(document: Document, expiresAt: Date? = nil) {
            self.document = document
            self.expiresAt = expiresAt
        }
    }

    /// The shortest time between two fetches caused by a document lacking what a caller needs.
    package nonisolated let minimumRefetchInterval: Duration
    private nonisolated let clock: any AuthClock
    private let load: @Sendable () async throws -> Fetched
    private var current: Fetched? {
        didSet {
            generation += 1
            let generation = generation
            latest.withLock { $0 = current.map { ($0, generation) } }
        }
    }
    /// Counts the documents kept (never goes back, so a generation is never reused).
    private var generation: UInt64 = 0
    /// A copy of `current` readable without entering the actor: the hit path (``fresh(where:)``)
    /// of a request handler costs no actor hop (on a busy server each can cost a thread wake-up).
    /// With it, its generation: 1 for the first document kept, one more for each later one.
    private nonisolated let latest = Mutex<(fetched: Fetched, generation: UInt64)?>(nil)
    private var lastFetch: Date?
    private var inFlight: Task<Fetched, any Error>?
    /// How many times the document was requested (successfully or not).
    package private(set) var fetchCount = 0

    /// Creates a cache; nothing is fetched until a document is asked for.
    /// - Parameters:
    ///   - clock: decides freshness and the refetch interval.
    ///   - minimumRefetchInterval: the shortest time between refetches for something missing.
    ///   - load: fetches and parses the document (its errors reach the callers as they are).
    package init(clock: any AuthClock, minimumRefetchInterval: Duration,
                 load: @escaping @Sendable () async throws -> Fetched) {
        self.clock = clock
        self.minimumRefetchInterval = minimumRefetchInterval
        self.load = load
    }

    /// The kept document when it is fresh and `holds` accepts it, read without entering the actor;
    /// nil when there is none (then call ``document(where:)``).
    package nonisolated func fresh(where holds: (Document) -> Bool) -> Document? {
        freshWithGeneration(where: holds)?.document
    }

    /// ``fresh(where:)`` with the kept document's generation, which changes whenever another
    /// document is kept (a later fetch, even of identical content): something derived from one
    /// generation's document (a token verified with its key) is still backed by the kept document
    /// exactly when the generation is unchanged.
    package nonisolated func freshWithGeneration(where holds: (Document) -> Bool) -> (document: Document, generation: UInt64)? {
        let now = clock.now
        guard let kept = latest.withLock({ $0 }), kept.fetched.expiresAt.map({ $0 > now }) ?? true, holds(kept.fetched.document) else {
            return nil
        }
        return (kept.fetched.document, kept.generation)
    }

    /// The kept document when it is fresh and `holds` accepts it; otherwise a fetched one (shared
    /// with concurrent callers). When a fresh document lacks what `holds` looks for and the last fetch
    /// was less than ``minimumRefetchInterval`` ago, the kept document is returned as it is.
    /// - Throws: the fetch's error, when a fetch was needed and failed.
    package func document(where holds: (Document) -> Bool) async throws -> Document {
        let now = clock.now
        if let current, current.expiresAt.map({ $0 > now }) ?? true {
            if holds(current.document) { return current.document }
            let mayRefetch = lastFetch.map { now.timeIntervalSince($0) >= minimumRefetchInterval.seconds } ?? true
            guard mayRefetch || inFlight != nil else { return current.document }
        }
        return try await fetch().document
    }

    private func fetch() async throws -> Fetched {
        if let inFlight { return try await inFlight.value }
        fetchCount += 1
        lastFetch = clock.now
        let task = Task(operation: load)
        inFlight = task
        defer { inFlight = nil }
        let fetched = try await task.value
        current = fetched
        return fetched
    }
}
