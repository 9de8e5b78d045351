import Foundation
import Hummingbird

extension Request {
    /// The query items, percent-decoded (`+` stays `+`, as WHATWG URL parsing of a non-form query
    /// would have it); the first of repeated names wins.
    var queryValues: [String: String] {
        var values: [String: String] = [:]
        let components = URLComponents(string: "http://x/?" + (uri.query ?? ""))
        for item in components?.queryItems ?? [] where values[item.name] == nil {
            values[item.name] = item.value ?? ""
        }
        return values
    }
}
