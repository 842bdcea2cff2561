import DBusTestSupport
import Foundation
import Testing

/// `responderctl touch replay` as a program (the replay itself: ResponderToolsTests).
@Suite struct TouchReplayCommandTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures/TouchReplay")

  /// The command line: the same output on stdout; a bad scene is refused with exit code 65 and
  /// the error on stderr.
  @Test func commandLine() throws {
    let tool = builtExecutable("responderctl")
    guard FileManager.default.isExecutableFile(atPath: tool.path) else {
      Issue.record("build responderctl first (swift build): \(tool.path) is missing")
      return
    }
    func run(_ arguments: [String]) throws -> (Int32, String, String) {
      try ChildProcess.runSeparately([tool.path] + arguments)
    }
    let recording = TouchReplayCommandTests.fixtures.appendingPathComponent("taps.evemu").path
    let (status, stdout, _) = try run(
      [
        "touch", "replay", recording, "--scene",
        TouchReplayCommandTests.fixtures.appendingPathComponent("taps.json").path,
      ])
    #expect(status == 0)
    #expect(
      stdout
        == (try String(
          contentsOf: TouchReplayCommandTests.fixtures.appendingPathComponent("taps.expected"),
          encoding: .utf8)))

    let bad = FileManager.default.temporaryDirectory.appendingPathComponent(
      "touch-replay-bad-\(getpid()).json")
    try "{\"screen\": {\"width\": 540, \"height\": 1170},\n \"views\": [{\"id\": \"A\"}]}".write(
      to: bad, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: bad) }
    let (badStatus, badOut, badErr) = try run(["touch", "replay", recording, "--scene", bad.path])
    #expect(badStatus == 65)
    #expect(badOut.isEmpty)
    #expect(badErr == "responderctl: \(bad.path):2:12: views[0]: missing key 'frame'\n")

    // A scene over the size cap (4 MiB of spaces) is refused before it is read, with the reason.
    let huge = FileManager.default.temporaryDirectory.appendingPathComponent(
      "touch-replay-huge-\(getpid()).json")
    let size = 4 << 20 + 1
    try String(repeating: " ", count: size).write(to: huge, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: huge) }
    let (hugeStatus, hugeOut, hugeErr) = try run(["touch", "replay", recording, "--scene", huge.path])
    #expect(hugeStatus == 65)
    #expect(hugeOut.isEmpty)
    #expect(
      hugeErr
        == "responderctl: \(huge.path): not read as a scene: it is \(size) bytes long, more than the \(4 << 20) such a file may have\n"
    )
  }
}
