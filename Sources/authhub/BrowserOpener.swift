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
            CLI.stderr("Could not start a browser; open this URL by hand:")
            CLI.stdoutLine(url.absoluteString)
        }
    }
}

extension BrowserOpener {
    /// Shows `url` to the user: printed alone on standard output with `noOpen` (for another
    /// program, or a browser elsewhere), else opened in the browser; one line on standard error
    /// says which, and `purpose` ("to sign in") says what for.
    ///
    /// The line names the page's host (and says when it is plain http): the page may be on another host
    /// than the provider's issuer (a discovery document names its endpoints), and the user should see
    /// where the browser is sent before typing a password there.
    static func show(_ url: URL, noOpen: Bool, purpose: String) {
        let at = location(url)
        if noOpen {
            CLI.stderr("Open this URL in a browser \(purpose) (\(at)):")
            CLI.stdoutLine(url.absoluteString)
        } else {
            CLI.stderr("Opening a browser \(purpose) (\(at))…")
            open(url)
        }
    }

    /// `at idp.example.com`, or `at http://127.0.0.1:8750, not https` for plain http.
    static func location(_ url: URL) -> String {
        let host = CLI.shown(url.host ?? "?") + (url.port.map { ":\($0)" } ?? "")
        return url.scheme?.lowercased() == "https" ? "at \(host)" : "at \(CLI.shown(url.scheme ?? "?"))://\(host), not https"
    }
}
