/// AuthHub's built-in page templates, strings and stylesheet (see ``WebPages`` to replace any).
public enum DefaultWebTemplates {
    /// The names of the templates an app may replace.
    public static var names: [String] { templates.keys.sorted() }

    /// The built-in templates by name.
    public static let templates: [String: String] = [
        "layout": """
            <!doctype html>
            <html lang="{{t.lang}}">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="same-origin">
            <title>{{title}} · {{product}}</title>
            <style nonce="{{nonce}}">{{{stylesheet}}}</style>
            </head>
            <body>
            <header class="ah-top"><span class="ah-brand">{{product}}</span></header>
            <main class="ah-main" id="main">
            {{{body}}}
            </main>
            </body>
            </html>
            """,
        "second-factor": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{t.secondFactorTitle}}</h1>
            <p class="ah-lead">{{t.secondFactorLead}}</p>
            {{#error}}<p class="ah-error" role="alert" id="ah-error">{{error}}</p>{{/error}}
            {{#hasTOTP}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="kind" value="totp">
            <label for="ah-totp">{{t.totpLabel}}</label>
            <input id="ah-totp" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,10}" maxlength="10" required autofocus{{#error}} aria-describedby="ah-error"{{/error}}>
            <button type="submit" class="ah-button">{{t.verify}}</button>
            </form>
            {{/hasTOTP}}
            {{#hasRecoveryCode}}
            <details class="ah-alt"{{^hasTOTP}} open{{/hasTOTP}}>
            <summary>{{t.useRecoveryCode}}</summary>
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="kind" value="recoveryCode">
            <label for="ah-recovery">{{t.recoveryCodeLabel}}</label>
            <input id="ah-recovery" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="40" required>
            <button type="submit" class="ah-button ah-secondary">{{t.verify}}</button>
            </form>
            </details>
            {{/hasRecoveryCode}}
            <p class="ah-foot"><a href="{{restart}}">{{t.startOver}}</a></p>
            </section>
            """,
        "message": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{heading}}</h1>
            <p class="ah-lead">{{text}}</p>
            {{#link}}<p class="ah-foot"><a href="{{link}}">{{linkText}}</a></p>{{/link}}
            </section>
            """,
    ]

    /// The built-in strings by key (English).
    public static let strings: [String: String] = [
        "lang": "en",
        "secondFactorTitle": "Two-step verification",
        "secondFactorLead": "Your password was accepted. Confirm it is you with your second factor.",
        "totpLabel": "Code from your authenticator app",
        "recoveryCodeLabel": "One of your recovery codes",
        "useRecoveryCode": "Use a recovery code instead",
        "verify": "Verify",
        "startOver": "Sign in again",
        "wrongCode": "That code is not right, or it was used already. Try again.",
        "expiredTitle": "This sign-in is over",
        "expiredText": "It took too long, or too many codes were wrong. Please sign in again.",
    ]

    /// The built-in stylesheet: a calm card layout, readable type, visible focus, contrast ≥ 4.5:1.
    public static let stylesheet = """
        :root{--ah-bg:#f5f6f8;--ah-card:#fff;--ah-text:#1c1f24;--ah-muted:#4b5360;--ah-accent:#2450b2;--ah-accent-text:#fff;--ah-border:#d5d9e0;--ah-error:#a61b1b;--ah-radius:10px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        *{box-sizing:border-box}body{margin:0;background:var(--ah-bg);color:var(--ah-text);line-height:1.5}
        .ah-top{padding:14px 24px;background:var(--ah-card);border-bottom:1px solid var(--ah-border)}.ah-brand{font-weight:650;font-size:1.05rem}
        .ah-main{max-width:720px;margin:40px auto;padding:0 16px}
        .ah-card{background:var(--ah-card);border:1px solid var(--ah-border);border-radius:var(--ah-radius);padding:28px 32px;box-shadow:0 1px 3px rgba(20,30,50,.06);margin-bottom:24px}
        h1{font-size:1.5rem;margin:0 0 8px}h2{font-size:1.15rem;margin:0 0 12px}.ah-lead{color:var(--ah-muted);margin:0 0 20px}
        .ah-form{display:flex;flex-direction:column;gap:8px;margin:0 0 16px}label{font-weight:600}
        input[type=text],input:not([type]),input[inputmode]{font:inherit;padding:10px 12px;border:1px solid #8a93a3;border-radius:8px;max-width:320px}
        .ah-button{font:inherit;font-weight:600;padding:10px 18px;border-radius:8px;border:1px solid var(--ah-accent);background:var(--ah-accent);color:var(--ah-accent-text);cursor:pointer;align-self:flex-start}
        .ah-secondary{background:var(--ah-card);color:var(--ah-accent)}.ah-danger{border-color:var(--ah-error);background:var(--ah-card);color:var(--ah-error)}
        :focus-visible{outline:3px solid #f0b429;outline-offset:2px}
        .ah-error{color:var(--ah-error);font-weight:600;margin:0 0 16px}.ah-foot{margin:16px 0 0;color:var(--ah-muted)}
        a{color:var(--ah-accent)}details.ah-alt summary{cursor:pointer;color:var(--ah-accent);margin:8px 0}
        table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:8px 6px;border-bottom:1px solid var(--ah-border)}th{color:var(--ah-muted);font-weight:600;font-size:.9rem}
        """
}
