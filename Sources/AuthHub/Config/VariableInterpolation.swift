/// `${VAR}` substitution in providers.json string values.
///
/// Syntax (a subset of POSIX shell parameter expansion, so it reads familiar):
/// - `${NAME}` — the variable's value; an unset variable is a problem naming it. A variable set to
///   the empty string substitutes the empty string.
/// - `${NAME:-default}` — the variable's value, or `default` when it is unset **or empty** (as in
///   the shell). The default runs to the first `}` and is taken literally.
/// - `$${` — a literal `${`. Any other `$` is literal.
/// - `NAME` is `[A-Za-z_][A-Za-z0-9_]*`; anything else after `${` (an unterminated `${`, `${1X}`,
///   `${A-b}`) is a malformed reference.
///
/// Messages name variables, never values: a variable may hold a secret.
struct VariableInterpolation: Sendable {
    /// A `${…}` reference that could not be used.
    enum Issue: Sendable, Hashable {
        /// `${NAME}` without a default, and `NAME` is not set.
        case unset(String)
        /// Not a valid reference; the associated text says why (without quoting the value).
        case malformed(String)

        var message: String {
            switch self {
            case .unset(let name): "environment variable \(name) is not set"
            case .malformed(let why): "malformed variable reference: \(why) (write ${NAME}, ${NAME:-default} or $${ for a literal ${)"
            }
        }
    }

    /// The outcome of interpolating one string.
    struct Result: Sendable {
        /// The substituted string. Meaningful only when ``issues`` is empty and variables were given
        /// (in syntax-only mode references are dropped from it).
        var value: String
        /// Whether the string contained at least one reference.
        var hasReferences: Bool
        /// Problems, in the order met.
        var issues: [Issue]
    }

    /// The variables to substitute, or nil to check syntax only (no variable is read).
    var variables: [String: String]?

    /// Substitutes every reference in `text`.
    func interpolate(_ text: String) -> Result {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var issues: [Issue] = []
        var hasReferences = false
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "$", i + 2 < scalars.count, scalars[i + 1] == "$", scalars[i + 2] == "{" {
                out.append("$")
                out.append("{")
                i += 3
                continue
            }
            guard c == "$", i + 1 < scalars.count, scalars[i + 1] == "{" else {
                out.append(c)
                i += 1
                continue
            }
            hasReferences = true
            // Find the closing brace.
            var j = i + 2
            while j < scalars.count, scalars[j] != "}" { j += 1 }
            guard j < scalars.count else {
                issues.append(.malformed("'${' is not closed by '}'"))
                break
            }
            let body = String(String.UnicodeScalarView(scalars[(i + 2)..<j]))
            i = j + 1
            let name: Substring
            let fallback: Substring?
            if let range = body.range(of: ":-") {
                name = body[..<range.lowerBound]
                fallback = body[range.upperBound...]
            } else {
                name = body[...]
                fallback = nil
            }
            guard Self.isValidName(name) else {
                issues.append(.malformed(name.isEmpty ? "empty variable name" : "variable names are letters, digits and '_', not starting with a digit"))
                continue
            }
            guard let variables else { continue }  // syntax-only mode
            if let value = variables[String(name)], !(fallback != nil && value.isEmpty) {
                out.append(contentsOf: value.unicodeScalars)
            } else if let fallback {
                out.append(contentsOf: fallback.unicodeScalars)
            } else {
                issues.append(.unset(String(name)))
            }
        }
        return Result(value: String(out), hasReferences: hasReferences, issues: issues)
    }

    /// Whether `text` contains a `${` reference (not counting `$${` escapes).
    static func containsReference(_ text: String) -> Bool {
        VariableInterpolation(variables: nil).interpolate(text).hasReferences
    }

    static func isValidName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || isASCIILetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || isASCIILetter($0) || ("0"..."9").contains($0) }
    }

    private static func isASCIILetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) }
}
