import AuthHub

extension OIDCProvider: BrowserSignInProvider {}
