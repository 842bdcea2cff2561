import DBusTestSupport
import ResponderdKit
import Testing

/// Both programs report the version of Version.swift (which NEWS.md's newest names: see
/// DocumentationTests).
@Suite struct VersionReportTests {
  @Test func bothProgramsReportTheVersion() throws {
    let daemon = try ChildProcess.runSeparately([try BuiltProducts.path(of: "responderd"), "--version"])
    #expect(daemon.status == 0)
    #expect(daemon.stdout == responderdVersion + "\n")
    let ctl = try ChildProcess.runSeparately([try BuiltProducts.path(of: "responderctl"), "version"])
    #expect(ctl.status == 0)
    #expect(ctl.stdout == "responderctl \(responderdVersion)\n")
  }
}
