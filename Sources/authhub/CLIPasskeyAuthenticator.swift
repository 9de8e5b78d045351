import AuthHub
import AuthHubFactors
import Foundation

/// The CLI's passkey authenticator: the software authenticator of AuthHubFactors over the file
/// credential store in `--passkey-store`, opened on first use so that commands which never touch a
/// passkey never create the directory.
struct CLIPasskeyAuthenticator: PasskeyAuthenticator {
    /// The credential directory (`passkeys.json` inside, mode 0600 in a 0700 folder).
    let directory: URL

    init(directory: String) {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
    }

    func makeCredential(_ options: PasskeyRegistrationOptions) async throws -> PasskeyRegistration {
        try await authenticator().makeCredential(options)
    }

    func getAssertion(_ options: PasskeyAssertionOptions) async throws -> PasskeyAssertion {
        try await authenticator().getAssertion(options)
    }

    private func authenticator() throws -> SoftwarePasskeyAuthenticator {
        try SoftwarePasskeyAuthenticator(store: try FilePasskeyCredentialStore(directory: directory))
    }
}
