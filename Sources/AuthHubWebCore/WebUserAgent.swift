/// A short, human summary of a `User-Agent` header for a list of signed-in sessions ("Firefox on
/// Linux", "Safari on iPhone"): browser and platform from well-known tokens, nothing else kept (the
/// full header is never stored). Outside input: at most 512 bytes are read, and the summary holds
/// only fixed words.
public enum WebUserAgent {
    public static func summary(_ header: String?) -> String? {
        guard let header, !header.isEmpty else { return nil }
        let text = String(decoding: header.utf8.prefix(512), as: UTF8.self)
        let browsers: [(token: String, name: String)] = [
            ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chromium/", "Chromium"), ("HeadlessChrome/", "Chrome (headless)"),
            ("Chrome/", "Chrome"), ("CriOS/", "Chrome"), ("FxiOS/", "Firefox"), ("Safari/", "Safari"), ("curl/", "curl"),
        ]
        let platforms: [(token: String, name: String)] = [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Mac OS X", "macOS"),
            ("Macintosh", "macOS"), ("Windows", "Windows"), ("Linux", "Linux"),
        ]
        let browser = browsers.first { text.contains($0.token) }?.name
        let platform = platforms.first { text.contains($0.token) }?.name
        switch (browser, platform) {
        case let (browser?, platform?): return "\(browser) on \(platform)"
        case let (browser?, nil): return browser
        case let (nil, platform?): return "A browser on \(platform)"
        case (nil, nil): return "Another browser or program"
        }
    }
}
