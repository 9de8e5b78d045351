@testable import AuthHub
import Testing

@Suite struct VariableInterpolationTests {
    let interpolation = VariableInterpolation(variables: ["HOST": "example.com", "EMPTY": "", "PORT": "8443"])

    @Test func substitutesSetVariables() {
        let r = interpolation.interpolate("https://${HOST}:${PORT}/x")
        #expect(r.issues.isEmpty)
        #expect(r.value == "https://example.com:8443/x")
        #expect(r.hasReferences)
    }

    @Test func unsetVariableIsAnIssueNamingIt() {
        let r = interpolation.interpolate("${MISSING}")
        #expect(r.issues == [.unset("MISSING")])
        #expect(r.issues.first?.message == "environment variable MISSING is not set")
    }

    @Test func defaultAppliesWhenUnsetOrEmpty() {
        #expect(interpolation.interpolate("${MISSING:-fallback/${x}").value == "fallback/${x")
        #expect(interpolation.interpolate("${MISSING:-a}").value == "a")
        #expect(interpolation.interpolate("${EMPTY:-b}").value == "b")
        #expect(interpolation.interpolate("${HOST:-c}").value == "example.com")
        #expect(interpolation.interpolate("${MISSING:-}").value == "")
        #expect(interpolation.interpolate("${EMPTY}").value == "")
        #expect(interpolation.interpolate("${EMPTY}").issues.isEmpty)
    }

    @Test func doubleDollarIsALiteral() {
        let r = interpolation.interpolate("a$${HOST}b$c$$d")
        #expect(r.issues.isEmpty)
        #expect(r.value == "a${HOST}b$c$$d")
        #expect(!r.hasReferences)
    }

    @Test(arguments: ["${", "x${HOST", "${}", "${1X}", "${A-b}", "${A B}"])
    func malformedReferences(text: String) {
        let r = interpolation.interpolate(text)
        #expect(r.issues.count == 1)
        guard case .malformed = r.issues.first else {
            Issue.record("expected malformed, got \(r.issues)")
            return
        }
    }

    @Test func syntaxOnlyModeReadsNoVariable() {
        let r = VariableInterpolation(variables: nil).interpolate("${HOST}")
        #expect(r.issues.isEmpty)
        #expect(r.hasReferences)
        #expect(VariableInterpolation(variables: nil).interpolate("${1}").issues.count == 1)
    }
}
