import HTTPTypes
import Hummingbird

/// The pages of the emulator's device verification flow at `/auth0/activate` (Auth0's
/// "Device Activation" screens, in the same minimal HTML as ``Auth0LoginPage``). Every value
/// shown is HTML-escaped.
///
/// - The code page posts `transaction` and `user_code` (input `id="user-code"`) to
///   `/auth0/activate`.
/// - The login step is the login page itself (``Auth0LoginPage``, posting to `/auth0/u/login`).
/// - The consent page shows the user code (`id="user-code"`), the client and the scopes, and
///   posts `transaction` and `action` (`approve` or `deny`, the two submit buttons) to
///   `/auth0/activate`.
/// - The done page says whether the device was connected (`id="device-result"`, `approved` or
///   `denied`).
enum Auth0DevicePage {
    /// The page that asks for the user code, prefilled with `userCode` (as typed, escaped).
    static func enterCode(transaction: String, userCode: String?, error: String?, status: HTTPResponse.Status) -> Response {
        let errorBlock = error.map { "<p class=\"error\" role=\"alert\">\(Auth0LoginPage.escape($0))</p>" } ?? ""
        let body = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Device activation · AuthHub emulator (Auth0)</title></head>
            <body>
            <h1>Device activation</h1>
            <p>Enter the code shown on your device.</p>
            \(errorBlock)
            <form method="post" action="\(Auth0Service.prefix)/activate">
            <input type="hidden" name="transaction" value="\(Auth0LoginPage.escape(transaction))">
            <label>Code <input id="user-code" name="user_code" autocomplete="off" autocapitalize="characters" spellcheck="false" value="\(Auth0LoginPage.escape(userCode ?? ""))" required></label>
            <button type="submit">Continue</button>
            </form>
            </body></html>
            """
        return Auth0LoginPage.html(body, status: status)
    }

    /// The consent page: approve or deny the device `userCode` (normalized) for `email`.
    static func consent(transaction: String, userCode: String, clientId: String, scopes: [String], email: String) -> Response {
        let scopeItems = scopes.map { "<li>\(Auth0LoginPage.escape($0))</li>" }.joined()
        let body = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Authorize device · AuthHub emulator (Auth0)</title></head>
            <body>
            <h1>Authorize device</h1>
            <p>Signed in as <span id="user-email">\(Auth0LoginPage.escape(email))</span>.</p>
            <p>Confirm that the device shows the code <code id="user-code">\(Auth0LoginPage.escape(Auth0DeviceAuthorization.displayed(userCode)))</code>.</p>
            <p>The application <code>\(Auth0LoginPage.escape(clientId))</code> asks for:</p>
            <ul>\(scopeItems)</ul>
            <form method="post" action="\(Auth0Service.prefix)/activate">
            <input type="hidden" name="transaction" value="\(Auth0LoginPage.escape(transaction))">
            <button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="deny">Deny</button>
            </form>
            </body></html>
            """
        return Auth0LoginPage.html(body, status: .ok)
    }

    /// The last page: the device was connected, or access was denied.
    static func done(approved: Bool) -> Response {
        let (result, message) = approved
            ? ("approved", "Your device is now connected. You can close this window.")
            : ("denied", "You denied access to the device. You can close this window.")
        let body = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Device activation · AuthHub emulator (Auth0)</title></head>
            <body><p id="device-result" data-result="\(result)">\(Auth0LoginPage.escape(message))</p></body></html>
            """
        return Auth0LoginPage.html(body, status: .ok)
    }
}
