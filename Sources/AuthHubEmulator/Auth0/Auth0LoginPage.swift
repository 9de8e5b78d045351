import HTTPTypes
import Hummingbird
import NIOCore

/// The emulator's stand-in for Universal Login: minimal HTML forms.
///
/// - The login page posts `transaction`, `email` and `password` (and `otp`, `captcha` when asked)
///   to `/auth0/u/login`.
/// - The sign-up page (`screen_hint=signup`) posts `transaction`, `email` and `password` (and
///   `captcha`) to `/auth0/u/signup`.
/// - The TOTP enrollment step shows the secret (base32, in an element with
///   `id="totp-secret"`) and the `otpauth://` URI (`id="totp-uri"`) above the login form, which
///   then asks for `otp`.
/// - With bot detection on, both forms carry the checkbox `captcha` ("I am not a robot"), which
///   must be ticked.
enum Auth0LoginPage {
    /// The TOTP secret and URI shown by the enrollment step.
    struct Enrollment: Sendable {
        /// Base32, no padding.
        var secret: String
        /// `otpauth://totp/…`.
        var uri: String
    }

    /// What a page shows.
    struct Options: Sendable {
        /// The email to fill in.
        var email: String? = nil
        /// An error (or, for the enrollment step, an instruction) shown above the form.
        var error: String? = nil
        /// Whether to ask for the one-time code.
        var askOTP = false
        /// Whether to show the CAPTCHA checkbox.
        var captcha = false
        /// The sign-up page instead of the login page.
        var signup = false
        /// The TOTP enrollment step (implies the one-time code field).
        var enrollment: Enrollment? = nil
    }

    /// The form field of the CAPTCHA checkbox.
    static let captchaField = "captcha"
    /// The error shown when the CAPTCHA was not ticked.
    static let captchaMessage = "Solve the challenge: tick \"I am not a robot\"."

    /// The login or sign-up page for a pending `/authorize` transaction.
    static func response(transaction: String, _ options: Options, status: HTTPResponse.Status) -> Response {
        let errorBlock = options.error.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        let otpField = options.askOTP || options.enrollment != nil
            ? "<label>One-time code <input name=\"otp\" inputmode=\"numeric\" autocomplete=\"one-time-code\" required></label>"
            : ""
        let enrollmentBlock = options.enrollment.map { enrollment in
            """
            <section><h2>Set up your authenticator app</h2>
            <p>Secret: <code id="totp-secret">\(escape(enrollment.secret))</code></p>
            <p>URI: <code id="totp-uri">\(escape(enrollment.uri))</code></p></section>
            """
        } ?? ""
        let captchaField = options.captcha
            ? "<label><input type=\"checkbox\" name=\"\(Self.captchaField)\" value=\"1\" required> I am not a robot</label>"
            : ""
        let (title, action, passwordCompletion) = options.signup
            ? ("Sign up", "\(Auth0Service.prefix)/u/signup", "new-password")
            : ("Log in", "\(Auth0Service.prefix)/u/login", "current-password")
        let body = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(title) · AuthHub emulator (Auth0)</title></head>
            <body>
            <h1>\(title)</h1>
            \(errorBlock)
            \(enrollmentBlock)
            <form method="post" action="\(action)">
            <input type="hidden" name="transaction" value="\(escape(transaction))">
            <label>Email <input name="email" type="email" autocomplete="username" value="\(escape(options.email ?? ""))" required></label>
            <label>Password <input name="password" type="password" autocomplete="\(passwordCompletion)" required></label>
            \(otpField)
            \(captchaField)
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

    /// An HTML reply (`no-store`).
    static func html(_ text: String, status: HTTPResponse.Status) -> Response {
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
