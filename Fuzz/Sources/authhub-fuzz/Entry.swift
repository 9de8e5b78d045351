import CFuzzerDriver
import Foundation

/// One fuzz target: a name (used by `Fuzz/run`, the corpus folder and AUTHHUB_FUZZ_TARGET) and the
/// function that feeds it one input. Any thrown error is a pass; a trap, a sanitizer report, a leak,
/// a timeout or running out of memory is a finding.
struct FuzzTarget: Sendable {
    var name: String
    var summary: String
    var run: @Sendable ([UInt8]) -> Void
}

let allTargets: [FuzzTarget] = [
    configTarget,
    sessionFileTarget,
    heldFactorFileTarget,
    jsonTarget,
    callbackTarget,
    jwtTarget,
    providersTarget,
    errorMappersTarget,
    headersTarget,
    webAuthnTarget,
    otpauthTarget,
    turnkeyBundleTarget,
    webTarget,
    dpopTarget,
    logoutTokenTarget,
]

/// The target named by AUTHHUB_FUZZ_TARGET, resolved once.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["AUTHHUB_FUZZ_TARGET"] ?? ""
    if name == "list" {
        for target in allTargets { print("\(target.name)\t\(target.summary)") }
        exit(0)
    }
    guard let target = allTargets.first(where: { $0.name == name }) else {
        let names = allTargets.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("authhub-fuzz: set AUTHHUB_FUZZ_TARGET to one of: \(names) (or `list`)\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    if let directory = ProcessInfo.processInfo.environment["AUTHHUB_FUZZ_WRITE_SEEDS"] {
        writeSeeds(to: directory)
        exit(0)
    }
    // Run the seeds once before libFuzzer starts tracking leaks: fixtures made lazily on first use
    // (keys, JWKS, the passkey, Foundation's caches) would otherwise be counted against the first input.
    for seed in fuzzSeeds(for: selectedTarget.name) { selectedTarget.run(seed.bytes) }
    selectedTarget.run([])
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeRawBufferPointer(start: data, count: size)) : []
    selectedTarget.run(bytes)
    return 0
}

/// The process entry point: SwiftPM names an executable's entry point itself, so libFuzzer's own
/// `main` cannot be used; its driver is called instead (same flags, same behaviour).
@main
enum FuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            fuzzTestOneInput(data.map(UnsafeRawPointer.init), size)
        }
        exit(status)
    }
}
