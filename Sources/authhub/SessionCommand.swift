import ArgumentParser
import AuthHub
import Foundation

/// `authhub session`: the stored session, with every token redacted.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "Show the stored session (tokens are never printed).")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Flag(name: .long, help: "Print the session summary as JSON.")
    var json = false

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let manager = try hub.manager(provider: session.provider, account: session.account)
            guard let stored = try await manager.current() else {
                CLI.fail("not signed in to \(manager.key.provider) (account \(manager.key.account)); run `authhub login`")
            }
            let summary = SessionSummary(stored, now: Date())
            print(json ? CLI.json(summary) : summary.text)
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub refresh`: renews the stored session now.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Renew the stored session with its refresh token.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Flag(name: .long, help: "Print the renewed session summary as JSON.")
    var json = false

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let renewed = try await hub.refresh(provider: session.provider, account: session.account)
            let summary = SessionSummary(renewed, now: Date())
            print(json ? CLI.json(summary) : "Session renewed.\n" + summary.text)
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub logout`: revokes (where the provider can) and removes the stored session.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Sign out: revoke the refresh token at the provider and remove the stored session.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            if let revocation = try await hub.signOut(provider: session.provider, account: session.account) {
                CLI.stderr("warning: the provider could not revoke the session (\(revocation.message)); it was removed locally")
            }
            print("Signed out.")
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}
