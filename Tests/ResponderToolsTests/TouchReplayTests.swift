import Foundation
import ResponderTools
import Testing

/// `responderctl touch replay`: recordings and scenes of Tests/Fixtures/TouchReplay, outputs checked
/// line by line against the `.expected` files (reviewed by hand: see the comments in each test).
@Suite struct TouchReplayTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures/TouchReplay")

  static func text(_ name: String) throws -> String {
    try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
  }

  static func replay(_ recording: String, _ scene: String) throws -> [String] {
    var lines: [String] = []
    try TouchReplay.run(
      recording: try text(recording), recordingFile: recording, scene: try text(scene), sceneFile: scene
    ) { lines.append($0) }
    return lines
  }

  static func expectLines(
    _ actual: [String], _ expectedFile: String, sourceLocation: SourceLocation = #_sourceLocation
  )
    throws
  {
    let expected = try text(expectedFile).split(separator: "\n").map(String.init)
    for (index, (got, want)) in zip(actual, expected).enumerated() {
      #expect(got == want, "line \(index + 1) of \(expectedFile)", sourceLocation: sourceLocation)
    }
    #expect(actual.count == expected.count, "number of lines", sourceLocation: sourceLocation)
  }

  /// A double tap on the left half (single requires double to fail: the double wins, the view's
  /// two sequences are cancelled in two messages), a single tap there (recognized 0.35 s after
  /// its lift, once the double tap failed), a tap on the right half.
  @Test func taps() throws {
    let lines = try Self.replay("taps.evemu", "taps.json")
    try Self.expectLines(lines, "taps.expected")
    #expect(lines[1].contains("\"tapCount\":2"))
    #expect(lines[10] == "{\"t\":3.43, \"kind\":\"recognizer\", \"id\":\"double\", \"state\":\"failed\"}")
  }

  /// The same recording on a screen turned 90°: the panel's top edge is the screen's right edge;
  /// delaysTouchesEnded false gives began, ended, began, cancelled; cancelsTouchesInView false lets
  /// the view have its touchesEnded after the tap.
  @Test func tapsRotated() throws {
    let lines = try Self.replay("taps.evemu", "taps-rotated.json")
    try Self.expectLines(lines, "taps-rotated.expected")
    #expect(lines[0].contains("\"x\":969.5,\"y\":100"))
  }

  /// A flick right is a swipe (the pan waiting for it fails); a slow drag makes the swipe fail when
  /// its 0.4 s are up, while the finger is still moving, and the pan begins then.
  @Test func flickAndDrag() throws {
    let lines = try Self.replay("flick-and-drag.evemu", "flick-and-drag.json")
    try Self.expectLines(lines, "flick-and-drag.expected")
    #expect(lines.contains("{\"t\":3.4, \"kind\":\"recognizer\", \"id\":\"pan\", \"state\":\"began\"}"))
  }

  /// A tap on a button in a panel with a tap recognizer: the button's action, the recognizer fails
  /// (the iOS 6 rule); a tap beside it: the recognizer; a press held 0.5 s: the long press, a
  /// second finger goes to the panel; dropped events cancel the press and the touch.
  @Test func buttonAndDroppedEvents() throws {
    let lines = try Self.replay("button.evemu", "button.json")
    try Self.expectLines(lines, "button.expected")
    #expect(
      lines.last
        == "{\"t\":3.9, \"kind\":\"touches\", \"method\":\"touchesCancelled\", \"view\":\"panel\", \"touches\":[{\"slot\":1,\"phase\":\"cancelled\",\"x\":150,\"y\":300,\"tapCount\":1}]}"
    )
  }

  /// Timers left at the end of the file run: a single tap whose double-tap window is still open
  /// when the recording stops is recognized 0.35 s later.
  @Test func timersRunOnAtTheEnd() throws {
    let recording =
      try Self.text("taps.evemu").split(separator: "\n").prefix(while: { !$0.hasPrefix("E: 3.") })
      .joined(separator: "\n")
      + "\nE: 3.000000 0003 0039 300\nE: 3.000000 0000 0000 0\nE: 3.080000 0003 0039 -1\nE: 3.080000 0000 0000 0\n"
    var lines: [String] = []
    try TouchReplay.run(
      recording: recording, recordingFile: "r.evemu", scene: try Self.text("taps.json"),
      sceneFile: "taps.json"
    ) { lines.append($0) }
    #expect(
      lines.suffix(6).first
        == "{\"t\":3.43, \"kind\":\"recognizer\", \"id\":\"double\", \"state\":\"failed\"}")
    #expect(lines.contains("{\"t\":3.43, \"kind\":\"action\", \"id\":\"single\", \"state\":\"recognized\"}"))
  }

  // MARK: Errors name the file, the place and the problem

  private func sceneError(_ scene: String) -> String? {
    do {
      try TouchReplay.run(
        recording: try Self.text("taps.evemu"), recordingFile: "taps.evemu", scene: scene, sceneFile: "s.json"
      ) { _ in }
      return nil
    } catch {
      return "\(error)"
    }
  }

  private let base = #"{"screen":{"width":540,"height":1170},"views":[{"id":"A","frame":[0,0,540,1170]}]"#

  @Test func sceneErrors() {
    #expect(
      sceneError("{\"screen\": {\"width\": 540,, }}") == "s.json:1:26: expected a key in quotes, found ','")
    #expect(
      sceneError("{\"screen\": {\"width\": 540}") == "s.json:1:26: expected ',' or '}', found end of file")
    #expect(sceneError("{}") == "s.json:1:1: missing key 'screen'")
    #expect(
      sceneError(#"{"screen":{"width":540,"height":1170,"rotation":45}}"#)
        == "s.json:1:49: screen.rotation: expected 0, 90, 180 or 270, found 45")
    #expect(
      sceneError(base + #","recognizers":[{"id":"t","kind":"tap","view":"A","tap":2}]}"#)
        == "s.json:1:132: recognizers[0]: unknown key 'tap' (did you mean 'taps'?)")
    #expect(
      sceneError(base + #","recognizers":[{"id":"p","kind":"pan","view":"A","taps":2}]}"#)
        == "s.json:1:132: recognizers[0]: unknown key 'taps' for a pan recognizer")
    #expect(
      sceneError(base + #","recognizers":[{"id":"t","kind":"tap","view":"Z"}]}"#)
        == "s.json:1:128: recognizers[0].view: no view 'Z' in the scene")
    #expect(
      sceneError(base + #","recognizers":[{"id":"t","kind":"tapp","view":"A"}]}"#)
        == "s.json:1:115: recognizers[0].kind: unknown kind 'tapp' (did you mean 'tap'?) (one of tap, longPress, pan, swipe, pinch, rotation)"
    )
    #expect(
      sceneError(base + #","recognizers":[{"id":"t","kind":"tap","view":"A","requireToFail":["u"]}]}"#)
        == "s.json:1:149: recognizers[0].requireToFail: no recognizer 'u' in the scene")
    #expect(
      sceneError(
        #"{"screen":{"width":540,"height":1170},"views":[{"id":"A","parent":"B","frame":[0,0,1,1]},{"id":"B","parent":"A","frame":[0,0,1,1]}]}"#
      )
        == "s.json:1:67: views[0].parent: 'A' would be inside itself (through 'B')")
    #expect(
      sceneError(#"{"screen":{"width":540,"height":1170},"views":[{"id":"A","frame":[0,0,1]}]}"#)
        == "s.json:1:66: views[0].frame: expected [x, y, width, height]")
    #expect(
      sceneError(
        #"{"screen":{"width":540,"height":1170},"views":[{"id":"A","frame":[0,0,1,1]},{"id":"A","frame":[0,0,1,1]}]}"#
      )
        == "s.json:1:77: views[1]: duplicate view id 'A' (first at line 1)")
    #expect(
      sceneError(base + #","recognizers":[{"id":"s","kind":"swipe","view":"A","direction":"sideways"}]}"#)
        == "s.json:1:146: recognizers[0].direction: unknown direction 'sideways'")
  }

  @Test func recordingErrors() throws {
    let scene = try Self.text("taps.json")
    func error(_ recording: String) -> String? {
      do {
        try TouchReplay.run(recording: recording, recordingFile: "r.evemu", scene: scene, sceneFile: "s.json")
        { _ in }
        return nil
      } catch {
        return "\(error)"
      }
    }
    #expect(
      error("A: 35 0 1079 0 0 0\nA: 36 0 2339 0 0 0\nE: 1.0 0003 0039\n")
        == "r.evemu:3: E: needs '<sec>.<usec> <type hex> <code hex> <value>'")
    #expect(
      error("A: 36 0 2339 0 0 0\nE: 1.0 0003 0039 1\n")
        == "r.evemu: no 'A: 35 …' line: the range of ABS_MT_POSITION_X is needed to map the screen")
    #expect(
      error("A: 35 0 1079 0 0 0\nA: 36 0 2339 0 0 0\nE: 2.0 0000 0000 0\nE: 1.0 0000 0000 0\n")
        == "r.evemu:4: time goes backwards (1.0 after 2.0)")
  }
}
