import HTTPTypes
import Hummingbird
import NIOCore

/// The emulator's stand-in for Universal Login: a minimal HTML form that posts the email and
/// password (and a one-time code for users with a TOTP authenticator) to `/auth0/u/login`.
enum Auth0LoginPage {
    /// The login page for a pending `/authorize` transaction.
    static func response(transaction: String, email: String?, error: String?, askOTP: Bool, status: HTTPResponse.Status) -> Response {
        let errorBlock = error.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        let otpField = askOTP
            ? "<label>One-time code <input name=\"otp\" inputmode=\"numeric\" autocomplete=\"one-time-code\" required></label>"
            : ""
        let body = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Log in · AuthHub emulator (Auth0)</title></head>
            <body>
            <h1>Log in</h1>
            \(errorBlock)
            <form method="post" action="\(Auth0Service.prefix)/u/login">
            <input type="hidden" name="transaction" value="\(escape(transaction))">
            <label>Email <input name="email" type="email" autocomplete="username" value="\(escape(email ?? ""))" required></label>
            <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            \(otpField)
            <button type="submit">Continue</button>
            </form>
            </body></html>
            """
        return html(body, status: status)
    }

    /// A page that only shows an error.
    static func error(_ message: String) -> Response {
        html("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Error</title></head><body><p>\(escape(message))</p></body></html>",
             status: .badRequest)
    }

    /// A page that only shows a message.
    static func message(_ message: String) -> Response {
        html("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>AuthHub emulator</title></head><body><p>\(escape(message))</p></body></html>",
             status: .ok)
    }

    private static func html(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// Escapes text for HTML element content and quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
