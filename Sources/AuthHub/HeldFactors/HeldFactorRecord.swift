import Foundation

/// Every AuthHub-held factor of one owner, with a version for compare-and-swap
/// (``HeldFactorStore/save(_:expectedVersion:)``).
public struct HeldFactorRecord: Sendable, Hashable, Codable {
    /// Whose factors these are.
    public var owner: HeldFactorOwner
    /// Set by the store: 1 for the first save, one more for each save after it.
    public var version: UInt64
    /// The factors, confirmed or waiting for confirmation.
    public var factors: [HeldFactor]

    /// The most factors one owner may hold (pending enrollments included): a bound on what a user
    /// can make a store keep.
    public static let maximumFactors = 32

    public init(owner: HeldFactorOwner, version: UInt64 = 0, factors: [HeldFactor] = []) {
        self.owner = owner
        self.version = version
        self.factors = factors
    }

    /// The confirmed factors: those a second step accepts.
    public var confirmed: [HeldFactor] { factors.filter(\.isConfirmed) }
}
