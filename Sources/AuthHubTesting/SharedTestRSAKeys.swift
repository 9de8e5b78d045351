import _CryptoExtras

/// Two RSA keys made once per test process, for tests that need a key of their own but not a
/// fresh one: a debug build spends seconds of CPU on each 2048-bit key, on the cooperative pool's
/// threads (two on a 2-core machine), and a few generated at once starved the emulator-backed
/// tests running beside them into 30-second timeouts. Package access: for this package's tests.
package enum SharedTestRSAKeys {
    /// A client's registered key.
    package static let first = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    /// A key nobody registered.
    package static let second = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
}
