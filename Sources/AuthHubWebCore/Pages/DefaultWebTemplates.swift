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
            {{#refresh}}<meta http-equiv="refresh" content="0; url={{refresh}}">{{/refresh}}
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
            {{#hasPasskey}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="kind" value="passkey">
            <input type="hidden" name="credential" value="">
            <button type="button" class="ah-button" id="ah-passkey" data-ah-passkey="get" data-ah-options="{{passkeyOptions}}" hidden>{{t.usePasskey}}</button>
            <p id="ah-passkey-status" class="ah-error" role="alert" data-ah-failed="{{t.passkeyFailed}}"></p>
            </form>
            <script nonce="{{nonce}}">{{{passkeyScript}}}</script>
            {{/hasPasskey}}
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
        "account": """
            {{#notice}}<p class="ah-notice" role="status">{{notice}}</p>{{/notice}}
            <section class="ah-card" aria-labelledby="ah-profile">
            <h1 id="ah-profile">{{t.accountTitle}}</h1>
            <dl class="ah-facts">
            {{#name}}<dt>{{t.name}}</dt><dd>{{.}}</dd>{{/name}}
            {{#email}}<dt>{{t.email}}</dt><dd>{{.}}</dd>{{/email}}
            <dt>{{t.signedInWith}}</dt><dd>{{provider}}</dd>
            </dl>
            {{#canEditProfile}}<p class="ah-actions">{{#canChangeProfile}}<a class="ah-button ah-secondary" href="{{changeProfileLink}}">{{t.editProfile}}</a>{{/canChangeProfile}}
            {{#canChangePassword}}<a class="ah-button ah-secondary" href="{{changePasswordLink}}">{{t.changePassword}}</a>{{/canChangePassword}}</p>{{/canEditProfile}}
            </section>
            <section class="ah-card" aria-labelledby="ah-methods">
            <h2 id="ah-methods">{{t.methodsTitle}}</h2>
            {{#hasMethods}}
            <table>
            <thead><tr><th scope="col">{{t.method}}</th><th scope="col">{{t.added}}</th><th scope="col">{{t.lastUsed}}</th><th scope="col"><span class="ah-hidden">{{t.actions}}</span></th></tr></thead>
            <tbody>
            {{#methods}}
            <tr><td><strong>{{label}}</strong>{{#detail}}<br><span class="ah-muted">{{.}}</span>{{/detail}}{{#held}}<br><span class="ah-muted">{{t.keptByApp}}</span>{{/held}}</td>
            <td>{{created}}</td><td>{{lastUsed}}</td>
            <td>{{#removable}}<a class="ah-link-danger" href="{{removeLink}}">{{t.remove}}<span class="ah-hidden"> {{label}}</span></a>{{/removable}}</td></tr>
            {{/methods}}
            </tbody>
            </table>
            {{/hasMethods}}
            {{^hasMethods}}<p class="ah-muted">{{t.noMethods}}</p>{{/hasMethods}}
            <p class="ah-actions">
            {{#canEnrollTOTP}}<a class="ah-button ah-secondary" href="{{enrollTOTP}}">{{t.addTOTP}}</a>{{/canEnrollTOTP}}
            {{#canEnrollPasskey}}<a class="ah-button ah-secondary" href="{{enrollPasskey}}">{{t.addPasskey}}</a>{{/canEnrollPasskey}}
            {{#canEnrollRecoveryCodes}}<a class="ah-button ah-secondary" href="{{enrollRecoveryCodes}}">{{t.addRecoveryCodes}}</a>{{/canEnrollRecoveryCodes}}
            {{#canEnrollEmailCode}}<a class="ah-button ah-secondary" href="{{enrollEmailCode}}">{{t.addEmailCode}}</a>{{/canEnrollEmailCode}}
            {{#canEnrollPhoneCode}}<a class="ah-button ah-secondary" href="{{enrollPhoneCode}}">{{t.addPhoneCode}}</a>{{/canEnrollPhoneCode}}
            </p>
            </section>
            <section class="ah-card" aria-labelledby="ah-sessions">
            <h2 id="ah-sessions">{{t.sessionsTitle}}</h2>
            <table>
            <thead><tr><th scope="col">{{t.device}}</th><th scope="col">{{t.signedIn}}</th><th scope="col">{{t.lastSeen}}</th><th scope="col"><span class="ah-hidden">{{t.actions}}</span></th></tr></thead>
            <tbody>
            {{#sessions}}
            <tr><td>{{device}}{{#current}} <span class="ah-badge">{{t.thisDevice}}</span>{{/current}}{{#address}}<br><span class="ah-muted">{{.}}</span>{{/address}}</td><td>{{created}}</td><td>{{seen}}</td>
            <td>{{^current}}<form method="post" action="{{action}}" class="ah-inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="sign-out-session"><input type="hidden" name="id" value="{{id}}"><button type="submit" class="ah-button ah-danger">{{t.signOut}}<span class="ah-hidden"> {{device}}</span></button></form>{{/current}}</td></tr>
            {{/sessions}}
            </tbody>
            </table>
            <p class="ah-actions">{{#hasOthers}}<a class="ah-button ah-danger" href="{{signOutOthersLink}}">{{t.signOutOthers}}</a>{{/hasOthers}}
            <a class="ah-button ah-danger" href="{{signOutEverywhereLink}}">{{t.signOutEverywhere}}</a></p>
            </section>
            {{#canDeleteAccount}}
            <section class="ah-card" aria-labelledby="ah-delete">
            <h2 id="ah-delete">{{t.deleteAccountTitle}}</h2>
            <p class="ah-muted">{{t.deleteAccountLead}}</p>
            <p class="ah-actions"><a class="ah-button ah-danger" href="{{deleteAccountLink}}">{{t.deleteAccount}}</a></p>
            </section>
            {{/canDeleteAccount}}
            """,
        "reauthenticate": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{t.stepUpTitle}}</h1>
            <p class="ah-lead">{{t.reauthenticateLead}}</p>
            <p class="ah-actions"><a class="ah-button" id="ah-continue" href="{{continue}}">{{t.continue}}</a></p>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            """,
        "confirm": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{heading}}</h1>
            <p class="ah-lead">{{text}}</p>
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="{{actionName}}">
            {{#id}}<input type="hidden" name="id" value="{{id}}">{{/id}}
            <button type="submit" class="ah-button ah-danger">{{confirmText}}</button>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            """,
        "enroll-totp": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{t.addTOTP}}</h1>
            <ol class="ah-steps">
            <li>{{t.totpStepScan}}</li>
            </ol>
            <figure class="ah-qr">{{{qr}}}</figure>
            <p>{{t.totpManual}} <code class="ah-secret" aria-label="{{t.totpManualLabel}}">{{secret}}</code></p>
            {{#error}}<p class="ah-error" role="alert" id="ah-error">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="confirm-totp">
            <label for="ah-code">{{t.totpStepCode}}</label>
            <input id="ah-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,10}" maxlength="10" required{{#error}} aria-describedby="ah-error"{{/error}}>
            <button type="submit" class="ah-button">{{t.verify}}</button>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            """,
        "enroll-passkey": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{t.addPasskey}}</h1>
            <p class="ah-lead">{{t.passkeyLead}}</p>
            {{#error}}<p class="ah-error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="confirm-passkey">
            <input type="hidden" name="credential" value="">
            <button type="button" class="ah-button" id="ah-passkey" data-ah-passkey="create" data-ah-options="{{options}}" hidden>{{t.createPasskey}}</button>
            <p id="ah-passkey-status" class="ah-error" role="alert" data-ah-failed="{{t.passkeyFailed}}"></p>
            <noscript><p class="ah-muted">{{t.passkeyNeedsScript}}</p></noscript>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            <script nonce="{{nonce}}">{{{passkeyScript}}}</script>
            """,
        "recovery-codes": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{t.recoveryCodesTitle}}</h1>
            <p class="ah-lead">{{t.recoveryCodesLead}}</p>
            <ul class="ah-codes">{{#codes}}<li><code>{{.}}</code></li>{{/codes}}</ul>
            <p><a class="ah-button ah-secondary" download="recovery-codes.txt" href="{{download}}">{{t.download}}</a></p>
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="confirm-recovery-codes">
            <button type="submit" class="ah-button">{{t.savedThem}}</button>
            </form>
            </section>
            """,
        "sign-in": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{#stepUp}}{{t.stepUpTitle}}{{/stepUp}}{{^stepUp}}{{t.signInTitle}}{{/stepUp}}</h1>
            <p class="ah-lead">{{#stepUp}}{{t.stepUpLead}}{{/stepUp}}{{^stepUp}}{{t.signInLead}}{{/stepUp}} <span class="ah-muted">({{provider}})</span></p>
            {{#error}}<p class="ah-error" role="alert" id="ah-error">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <label for="ah-email">{{t.email}}</label>
            <input id="ah-email" name="email" type="email" autocomplete="username" maxlength="320" required value="{{email}}"{{^email}} autofocus{{/email}}{{#error}} aria-describedby="ah-error"{{/error}}>
            <label for="ah-password">{{t.password}}</label>
            <input id="ah-password" name="password" type="password" autocomplete="current-password" maxlength="1024" required{{#email}} autofocus{{/email}}>
            <button type="submit" class="ah-button">{{t.signIn}}</button>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            """,
        "sign-in-passkey": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{#stepUp}}{{t.stepUpTitle}}{{/stepUp}}{{^stepUp}}{{t.signInTitle}}{{/stepUp}}</h1>
            <p class="ah-lead">{{t.passkeySignInLead}} <span class="ah-muted">({{provider}})</span></p>
            {{#error}}<p class="ah-error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="credential" value="">
            <button type="button" class="ah-button" id="ah-passkey" data-ah-passkey="get" data-ah-options="{{options}}" hidden>{{t.usePasskey}}</button>
            <p id="ah-passkey-status" class="ah-error" role="alert" data-ah-failed="{{t.passkeyFailed}}"></p>
            <noscript><p class="ah-muted">{{t.passkeyNeedsScript}}</p></noscript>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            <script nonce="{{nonce}}">{{{passkeyScript}}}</script>
            """,
        "enroll-contact": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{title}}</h1>
            <p class="ah-lead">{{hint}}</p>
            {{#error}}<p class="ah-error" role="alert" id="ah-error">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="{{actionName}}">
            <label for="ah-value">{{label}}</label>
            <input id="ah-value" name="value" type="{{type}}" autocomplete="{{autocomplete}}" maxlength="320" required value="{{value}}"{{#error}} aria-describedby="ah-error"{{/error}}>
            <button type="submit" class="ah-button">{{t.sendCode}}</button>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            """,
        "enroll-code": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{title}}</h1>
            <p class="ah-lead">{{t.codeSentTo}} <strong>{{destination}}</strong></p>
            {{#error}}<p class="ah-error" role="alert" id="ah-error">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="confirm-code">
            <label for="ah-code">{{t.codeLabel}}</label>
            <input id="ah-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{4,10}" maxlength="10" required autofocus{{#error}} aria-describedby="ah-error"{{/error}}>
            <button type="submit" class="ah-button">{{t.verify}}</button>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            """,
        "change-password": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{t.changePassword}}</h1>
            <p class="ah-lead">{{t.changePasswordLead}}</p>
            {{#error}}<p class="ah-error" role="alert" id="ah-error">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="change-password">
            <label for="ah-new">{{t.newPassword}}</label>
            <input id="ah-new" name="new" type="password" autocomplete="new-password" maxlength="1024" required autofocus{{#error}} aria-describedby="ah-error"{{/error}}>
            <label for="ah-repeat">{{t.repeatPassword}}</label>
            <input id="ah-repeat" name="repeat" type="password" autocomplete="new-password" maxlength="1024" required>
            <button type="submit" class="ah-button">{{t.save}}</button>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
            </section>
            """,
        "profile": """
            <section class="ah-card" aria-labelledby="ah-title">
            <h1 id="ah-title">{{t.editProfile}}</h1>
            {{#error}}<p class="ah-error" role="alert" id="ah-error">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="ah-form">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="action" value="change-profile">
            {{#canChangeName}}<label for="ah-name">{{t.name}}</label>
            <input id="ah-name" name="name" autocomplete="name" maxlength="256" value="{{name}}"{{#error}} aria-describedby="ah-error"{{/error}}>{{/canChangeName}}
            {{#canChangeEmail}}<label for="ah-email">{{t.email}}</label>
            <input id="ah-email" name="email" type="email" autocomplete="email" maxlength="320" value="{{email}}"{{#error}} aria-describedby="ah-error"{{/error}}>
            <p class="ah-muted">{{t.emailChangeNote}}</p>{{/canChangeEmail}}
            <button type="submit" class="ah-button">{{t.save}}</button>
            </form>
            <p class="ah-foot"><a href="{{back}}">{{t.cancel}}</a></p>
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
        "accountTitle": "Your account",
        "name": "Name",
        "email": "Email",
        "signedInWith": "Signed in with",
        "methodsTitle": "Sign-in methods",
        "method": "Method",
        "added": "Added",
        "lastUsed": "Last used",
        "actions": "Actions",
        "keptByApp": "kept by this app",
        "remove": "Remove",
        "noMethods": "Your sign-in methods are managed by your identity provider.",
        "addTOTP": "Add an authenticator app",
        "addRecoveryCodes": "Create recovery codes",
        "sessionsTitle": "Where you are signed in",
        "device": "Device",
        "signedIn": "Signed in",
        "thisDevice": "this device",
        "lastSeen": "Last seen",
        "now": "now",
        "signOut": "Sign out",
        "signOutOthers": "Sign out everywhere else",
        "cancel": "Cancel",
        "confirmRemoveTitle": "Remove this sign-in method?",
        "confirmRemoveText": "You will no longer be able to use it to sign in.",
        "confirmSignOutOthersTitle": "Sign out everywhere else?",
        "confirmSignOutOneTitle": "Sign out that browser?",
        "confirmSignOutOneText": "it will have to sign in again; its session is revoked at the identity provider.",
        "signOutEverywhere": "Sign out everywhere",
        "confirmSignOutEverywhereTitle": "Sign out everywhere?",
        "confirmSignOutEverywhereText": "Every browser signed in to your account is signed out, this one too, and their sessions are revoked at the identity provider.",
        "confirmSignOutOthersText": "Every other browser signed in to your account is signed out; this one stays signed in.",
        "totpStepScan": "Scan this code with your authenticator app (or type the key below).",
        "totpManual": "Key for manual entry:",
        "totpManualLabel": "Key for manual entry",
        "totpStepCode": "Then enter the 6-digit code the app shows",
        "recoveryCodesTitle": "Your recovery codes",
        "recoveryCodesLead": "Each code signs you in once if you lose your other factors. They are shown only now: save them somewhere safe.",
        "download": "Download as a text file",
        "savedThem": "I have saved them",
        "added.totp": "Your authenticator app was added.",
        "added.recoveryCode": "Your recovery codes are ready.",
        "removed": "The sign-in method was removed.",
        "signedOutOne": "That session was signed out.",
        "signedOutOthers": "Every other session was signed out.",
        "unknownKind": "That sign-in method",
        "unknownDevice": "A browser",
        "addPasskey": "Add a passkey",
        "passkeyLead": "A passkey signs you in with your device's screen lock or a security key, nothing to type.",
        "createPasskey": "Create a passkey",
        "usePasskey": "Use your passkey",
        "passkeyFailed": "The passkey was not created or not used. Try again, or use another way.",
        "passkeyNeedsScript": "Passkeys need JavaScript in this browser.",
        "added.passkey": "Your passkey was added.",
        "deleteAccountTitle": "Delete your account",
        "deleteAccountLead": "Your account and everything kept with it are deleted for good; you are signed out everywhere.",
        "deleteAccount": "Delete my account",
        "confirmDeleteTitle": "Delete your account?",
        "confirmDeleteText": "This cannot be undone.",
        "signInTitle": "Sign in",
        "signInLead": "Sign in with your email address and password.",
        "stepUpTitle": "Confirm it is you",
        "stepUpLead": "Enter your password again to continue.",
        "reauthenticateLead": "This needs a recent sign-in: you are taken to sign in again, then back here.",
        "continue": "Continue",
        "addEmailCode": "Get codes by email",
        "addPhoneCode": "Get codes by text message",
        "emailCodeLead": "A code is sent to this address when you sign in. First, confirm it with the code we send now.",
        "phoneCodeLead": "A code is sent to this number when you sign in. First, confirm it with the code we send now.",
        "emailToUse": "Email address",
        "phoneToUse": "Phone number (with + and the country code)",
        "sendCode": "Send the code",
        "codeSentTo": "Enter the code we sent to",
        "codeLabel": "Code",
        "emailInvalid": "That is not an email address that can be used.",
        "phoneInvalid": "Enter the number with + and the country code, digits only.",
        "added.emailCode": "Codes by email are on.",
        "added.smsCode": "Codes by text message are on.",
        "passkeySignInLead": "Sign in with your passkey: your device's screen lock or a security key.",
        "password": "Password",
        "signIn": "Sign in",
        "signInMissing": "Enter your email address and your password.",
        "signInWrong": "Wrong email or password.",
        "signInTooMany": "Too many attempts. Wait a little, then try again.",
        "changePassword": "Change your password",
        "changePasswordLead": "Choose a new password. You signed in a moment ago, which is how we know it is you.",
        "newPassword": "New password",
        "repeatPassword": "New password again",
        "passwordMissing": "Enter a new password.",
        "passwordsDiffer": "The two passwords differ.",
        "passwordWeak": "That password is too weak or too well known. Choose another one.",
        "passwordChanged": "Your password was changed.",
        "editProfile": "Edit your profile",
        "emailChangeNote": "Some providers first send a link to the new address and change it once you follow it.",
        "save": "Save",
        "profileChanged": "Your profile was changed.",
        "profileUnchanged": "Nothing was changed.",
        "emailVerificationSent": "Follow the link sent to your new address to finish changing it.",
        "emailInUse": "That email address belongs to another account.",
        "profileInvalid": "That name or email address cannot be used.",
        "kind.password": "Password",
        "kind.totp": "Authenticator app",
        "kind.passkey": "Passkey",
        "kind.recoveryCode": "Recovery codes",
        "kind.emailCode": "Codes by email",
        "kind.smsCode": "Codes by text message",
        "kind.push": "Push notifications",
        "kind.linkedAccount": "Linked account",
    ]

    /// The pages' own WebAuthn script (no third-party code): it shows a passkey button only where the
    /// browser has WebAuthn, decodes the options the page carries (base64url members), calls
    /// `navigator.credentials.create` or `.get`, and posts the result as WebAuthn's JSON form
    /// (`RegistrationResponseJSON`, `AuthenticationResponseJSON`) in the form's `credential` field.
    public static let passkeyScript = #"""
        (function () {
          "use strict";
          if (!window.PublicKeyCredential || !navigator.credentials) { return; }
          function decode(text) {
            var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
            while (base64.length % 4) { base64 += "="; }
            var binary = atob(base64), bytes = new Uint8Array(binary.length);
            for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
            return bytes.buffer;
          }
          function encode(buffer) {
            var bytes = new Uint8Array(buffer), binary = "";
            for (var i = 0; i < bytes.length; i++) { binary += String.fromCharCode(bytes[i]); }
            return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
          }
          function ids(list) { return (list || []).map(function (c) { return { type: "public-key", id: decode(c.id), transports: c.transports }; }); }
          document.querySelectorAll("[data-ah-passkey]").forEach(function (button) {
            button.hidden = false;
            button.addEventListener("click", function () {
              var form = button.form, status = document.getElementById("ah-passkey-status");
              var options = JSON.parse(button.getAttribute("data-ah-options"));
              var creating = button.getAttribute("data-ah-passkey") === "create";
              options.challenge = decode(options.challenge);
              var call;
              if (creating) {
                options.user.id = decode(options.user.id);
                options.excludeCredentials = ids(options.excludeCredentials);
                call = navigator.credentials.create({ publicKey: options });
              } else {
                options.allowCredentials = ids(options.allowCredentials);
                call = navigator.credentials.get({ publicKey: options });
              }
              button.disabled = true;
              call.then(function (credential) {
                var r = credential.response, response = { clientDataJSON: encode(r.clientDataJSON) };
                if (creating) {
                  response.attestationObject = encode(r.attestationObject);
                  response.transports = r.getTransports ? r.getTransports() : [];
                } else {
                  response.authenticatorData = encode(r.authenticatorData);
                  response.signature = encode(r.signature);
                  if (r.userHandle) { response.userHandle = encode(r.userHandle); }
                }
                var json = { id: credential.id, rawId: encode(credential.rawId), type: credential.type, response: response,
                             clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {} };
                if (credential.authenticatorAttachment) { json.authenticatorAttachment = credential.authenticatorAttachment; }
                form.elements.credential.value = JSON.stringify(json);
                form.submit();
              }, function () {
                button.disabled = false;
                if (status) { status.textContent = status.getAttribute("data-ah-failed"); }
              });
            });
          });
        })();
        """#

    /// The built-in stylesheet: a calm card layout, readable type, visible focus, contrast ≥ 4.5:1.
    public static let stylesheet = """
        :root{--ah-bg:#f5f6f8;--ah-card:#fff;--ah-text:#1c1f24;--ah-muted:#4b5360;--ah-accent:#2450b2;--ah-accent-text:#fff;--ah-border:#d5d9e0;--ah-error:#a61b1b;--ah-radius:10px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        *{box-sizing:border-box}body{margin:0;background:var(--ah-bg);color:var(--ah-text);line-height:1.5}
        .ah-top{padding:14px 24px;background:var(--ah-card);border-bottom:1px solid var(--ah-border)}.ah-brand{font-weight:650;font-size:1.05rem}
        .ah-main{max-width:720px;margin:40px auto;padding:0 16px}
        .ah-card{background:var(--ah-card);border:1px solid var(--ah-border);border-radius:var(--ah-radius);padding:28px 32px;box-shadow:0 1px 3px rgba(20,30,50,.06);margin-bottom:24px}
        h1{font-size:1.5rem;margin:0 0 8px}h2{font-size:1.15rem;margin:0 0 12px}.ah-lead{color:var(--ah-muted);margin:0 0 20px}
        .ah-form{display:flex;flex-direction:column;gap:8px;margin:0 0 16px}label{font-weight:600}
        input[type=text],input[type=email],input[type=password],input:not([type]),input[inputmode]{font:inherit;padding:10px 12px;border:1px solid #8a93a3;border-radius:8px;max-width:320px}
        .ah-button{font:inherit;font-weight:600;padding:10px 18px;border-radius:8px;border:1px solid var(--ah-accent);background:var(--ah-accent);color:var(--ah-accent-text);cursor:pointer;align-self:flex-start}
        .ah-secondary{background:var(--ah-card);color:var(--ah-accent)}.ah-danger{border-color:var(--ah-error);background:var(--ah-card);color:var(--ah-error)}
        :focus-visible{outline:3px solid #f0b429;outline-offset:2px}
        .ah-error{color:var(--ah-error);font-weight:600;margin:0 0 16px}.ah-foot{margin:16px 0 0;color:var(--ah-muted)}
        a{color:var(--ah-accent)}details.ah-alt summary{cursor:pointer;color:var(--ah-accent);margin:8px 0}
        .ah-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        .ah-muted{color:var(--ah-muted);font-size:.92rem}.ah-badge{background:#e6ecf9;color:#1d3f8f;border-radius:999px;padding:2px 8px;font-size:.8rem;font-weight:600}
        .ah-facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0}.ah-facts dt{color:var(--ah-muted)}.ah-facts dd{margin:0}
        .ah-actions{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0 0}.ah-actions .ah-button,a.ah-button{text-decoration:none;display:inline-block}
        .ah-inline{margin:0}.ah-plain{list-style:none;padding:0;display:flex;gap:12px;flex-wrap:wrap}.ah-link-danger{color:var(--ah-error)}.ah-notice{background:#e8f5ec;border:1px solid #9ccfae;color:#14532d;border-radius:8px;padding:10px 14px}
        .ah-qr{margin:16px 0}.ah-qr svg{width:216px;height:216px}.ah-secret{font-size:1.05rem;letter-spacing:.06em;word-break:break-all}
        .ah-codes{columns:2;list-style:none;padding:0;font-size:1.05rem}.ah-codes li{margin:4px 0}
        table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:8px 6px;border-bottom:1px solid var(--ah-border)}th{color:var(--ah-muted);font-weight:600;font-size:.9rem}
        """
}
