import Foundation

/// Opens a URL in the user's browser (`xdg-open` on Linux, `open` on macOS); when that fails, the
/// URL is printed so the user can open it by hand.
enum BrowserOpener {
    static func open(_ url: URL) {
        #if os(macOS)
        let tool = "/usr/bin/open"
        #else
        let tool = "/usr/bin/xdg-open"
        #endif
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            CLI.stderr("Could not start a browser; open this URL to sign in:")
            CLI.stdoutLine(url.absoluteString)
        }
    }
}
