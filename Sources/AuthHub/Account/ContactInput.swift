/// Checks of an email address or phone number a user typed, made before any request so a typo
/// fails at once with a specific error (the hub's account API and Auth0's My Account flows).
package enum ContactInput {
    /// Nil when `address` looks like an email address: one `@`, a non-empty local part, a dotted
    /// domain, no spaces or control characters, at most 254 bytes; else ``AuthErrorCode/invalidEmail``.
    package static func emailProblem(_ address: String) -> AuthError? {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        let labels = parts.count == 2 ? parts[1].split(separator: ".", omittingEmptySubsequences: false) : []
        let valid = address.utf8.count <= 254 && parts.count == 2 && !parts[0].isEmpty && labels.count >= 2
            && !labels.contains(where: \.isEmpty)
            && !address.unicodeScalars.contains { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
        return valid ? nil : AuthError(.invalidEmail, message: "Enter a valid email address.", details: ["field": "email"])
    }

    /// Nil for an E.164 number — `+`, a non-zero digit, then 6 to 14 more ASCII digits; else
    /// ``AuthErrorCode/invalidRequest``.
    package static func phoneProblem(_ number: String) -> AuthError? {
        let digits = number.utf8.dropFirst()
        let valid = number.hasPrefix("+") && (7...15).contains(digits.count)
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } && digits.first != UInt8(ascii: "0")
        return valid ? nil : AuthError(.invalidRequest, message: "Enter the phone number in international form, like +15555550100.",
                                       details: ["field": "phone_number"])
    }
}
