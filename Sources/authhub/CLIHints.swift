import AuthHub
import Foundation

extension CLI {
    /// A command to suggest, carrying the `--provider`, `--account`, `--env` and `--config` the user
    /// gave (and only those), so that copying it acts on the same session and configuration:
    /// `` `authhub login --env production` ``.
    static func suggest(_ command: String, _ options: GlobalOptions, _ session: SessionOptions? = nil, then extra: String? = nil) -> String {
        var words = ["authhub", command]
        if let provider = session?.provider { words += ["--provider", quoted(provider)] }
        if let account = session?.account, account != SessionKey.defaultAccount { words += ["--account", quoted(account)] }
        if let env = options.env { words += ["--env", quoted(env)] }
        if options.config != GlobalOptions.defaultConfig { words += ["--config", quoted(options.config)] }
        if let extra { words.append(extra) }
        return "`" + words.joined(separator: " ") + "`"
    }

    /// The one wording of "not signed in", for every command that needs a session.
    static func notSignedInMessage(_ key: SessionKey, _ options: GlobalOptions, _ session: SessionOptions) -> String {
        "not signed in to \(key.provider) (account \(key.account)); run \(suggest("login", options, session))"
    }

    /// Fails with the one wording of "not signed in".
    static func failNotSignedIn(_ key: SessionKey, _ options: GlobalOptions, _ session: SessionOptions) -> Never {
        fail(notSignedInMessage(key, options, session))
    }

    /// A word for a shell: single-quoted when it holds anything but letters, digits and `-_./:@=`.
    private static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || "-_./:@=".unicodeScalars.contains($0)
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
