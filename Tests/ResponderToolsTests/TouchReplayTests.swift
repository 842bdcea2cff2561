import Foundation
import ResponderTools
import Testing
import TouchScenes

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

  /// The replay of the strokes of `<scene>.strokes.json`, made into a recording by `touch synth`,
  /// on the scene of `<scene>.json`.
  static func replaySynthesized(_ scene: String) throws -> [String] {
    let strokes = try TouchSynth.parse(try text(scene + ".strokes.json"), file: "strokes")
    var lines: [String] = []
    try TouchReplay.run(
      recording: TouchSynth.recording(strokes), recordingFile: "synth.evemu",
      scene: try text(scene + ".json"),
      sceneFile: scene + ".json"
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

  /// Issue 25, synthetic: a quick second tap in slot 0 sends its tracking id and nothing else (the
  /// kernel drops values equal to the slot's). It lands where the first lifted, tap count 2: the
  /// double tap is recognized (it landed at (0, 0) and the double tap failed).
  @Test func repeatedTapInOneSlot() throws {
    let lines = try Self.replay("repeated-tap-one-slot.evemu", "taps.json")
    try Self.expectLines(lines, "repeated-tap-one-slot.expected")
    #expect(lines.contains { $0.contains("\"x\":100,\"y\":300") && $0.contains("\"tapCount\":2") })
    #expect(lines.contains("{\"t\":1.28, \"kind\":\"action\", \"id\":\"double\", \"state\":\"recognized\"}"))
  }

  /// Issue 25, synthetic: two resting fingers, one lifting while the other moves a unit, make no
  /// pan; in a two-finger pan, the lift of one finger moves the translation by the frame's own
  /// movement (half of the other finger's 10 points), not by half the distance between them.
  @Test func liftDuringPan() throws {
    let lines = try Self.replay("lift-during-pan.evemu", "pan.json")
    try Self.expectLines(lines, "lift-during-pan.expected")
    #expect(lines.contains("{\"t\":1.2, \"kind\":\"recognizer\", \"id\":\"pan\", \"state\":\"failed\"}"))
    let translations = lines.filter { $0.contains("\"kind\":\"action\"") }.map {
      String($0[$0.range(of: "\"translation\":")!.upperBound...].prefix { $0 != "]" }) + "]"
    }
    #expect(translations == ["[0,20]", "[0,40]", "[0,45]", "[0,65]", "[0,65]"])
  }

  /// Issue 25, synthetic: a protocol A recording (SYN_MT_REPORT, no slots) is decoded into tracked
  /// touches (it gave no output at all): the second finger, reported first, is slot 1; the pan
  /// follows both.
  @Test func protocolA() throws {
    let lines = try Self.replay("protocol-a.evemu", "pan.json")
    try Self.expectLines(lines, "protocol-a.expected")
    #expect(lines[1].contains("{\"slot\":1,\"phase\":\"began\",\"x\":400,\"y\":600"))
    #expect(lines.contains { $0.contains("\"state\":\"ended\", \"translation\":[20,0]") })
  }

  /// `touch convert`: a `libinput record` file (YAML) becomes evemu text with the device's name,
  /// id, codes, properties and axes, and its events; replayed, its double tap (the second tap
  /// sending its tracking id only) is recognized.
  @Test func libinputRecordConverted() throws {
    let evemu = try LibinputRecord.evemu(fromYAML: try Self.text("libinput-record.yml"), file: "r.yml")
    let lines = evemu.split(separator: "\n").map(String.init)
    #expect(lines.contains("N: Synthetic Touchscreen # 1"))
    #expect(lines.contains("I: 0018 0416 038f 0100"))
    #expect(lines.contains("P: 02 00 00 00 00 00 00 00"))
    #expect(lines.contains("A: 35 0 1079 0 0 0") && lines.contains("A: 39 0 65535 0 0 0"))
    #expect(
      lines.contains("B: 01 00 00 00 00 00 00 00 00") && lines.contains("B: 03 03 00 00 00 00 80 60 02"))
    #expect(lines.contains("E: 1.080000 0003 0039 -1"))
    #expect(lines.filter { $0.hasPrefix("E: ") }.count == 15)
    var output: [String] = []
    try TouchReplay.run(
      recording: evemu, recordingFile: "r.evemu", scene: try Self.text("taps.json"), sceneFile: "taps.json"
    ) { output.append($0) }
    #expect(output.contains("{\"t\":1.28, \"kind\":\"action\", \"id\":\"double\", \"state\":\"recognized\"}"))
    #expect(throws: ToolInputError.self) { try LibinputRecord.evemu(fromYAML: "version: 1\n", file: "x.yml") }
    #expect(throws: ToolInputError.self) {
      try LibinputRecord.evemu(
        fromYAML:
          "devices:\n- node: /dev/input/event1\n  evdev:\n    name: \"x\"\n  events:\n  - evdev:\n    - [1, 2, 3]\n",
        file: "x.yml")
    }
  }

  /// A flick right is a swipe (the pan waiting for it fails); a slow drag makes the swipe fail when
  /// its 0.4 s are up, while the finger is still moving, and the pan begins then.
  @Test func flickAndDrag() throws {
    let lines = try Self.replay("flick-and-drag.evemu", "flick-and-drag.json")
    try Self.expectLines(lines, "flick-and-drag.expected")
    #expect(lines.contains("{\"t\":3.4, \"kind\":\"recognizer\", \"id\":\"pan\", \"state\":\"began\"}"))
  }

  /// The scene's view features, on a recording `touch synth` makes: a row of a list scrolled by
  /// its bounds origin gets a tap at the top of the screen (in its own coordinates, 200,50); a view
  /// turned 90° gets its touch turned back; a pan on the window gives way to a drag along a
  /// switch's knob (the switch flips) but takes a slider's drag (only a swipe is the slider's
  /// default action, seed 000); the list itself gets a touch at 1300 in its scrolled coordinates.
  /// The row's touches go on up the responder chain to the list and to the list's view controller,
  /// each reported as a responder the touch method reached; the switch's valueChanged action, sent
  /// to a nil target, is performed by the panel holding it (seed 004: with a nil target, UIKit walks
  /// the responder chain until an object implements the action).
  @Test func boundsOriginTransformControlsAndTheWindow() throws {
    let lines = try Self.replaySynthesized("scene-extensions")
    try Self.expectLines(lines, "scene-extensions.expected")
    #expect(lines[0].contains("\"view\":\"row\"") && lines[0].contains("\"viewX\":200,\"viewY\":50"))
    #expect(lines.contains("{\"t\":3.1, \"kind\":\"control\", \"view\":\"s\", \"event\":\"valueChanged\"}"))
    #expect(
      lines.contains(
        "{\"t\":3.1, \"kind\":\"performed\", \"action\":\"toggled\", \"responder\":\"panel\", \"sender\":\"s\"}"
      ))
    #expect(
      lines[1...2] == [
        "{\"t\":1, \"kind\":\"responder\", \"method\":\"touchesBegan\", \"responder\":\"list\", \"slots\":[0]}",
        "{\"t\":1, \"kind\":\"responder\", \"method\":\"touchesBegan\", \"responder\":\"listController\", \"slots\":[0]}",
      ])
  }

  /// Delegate answers and a hit area: a tap whose delegate says it may not begin fails; a tap
  /// receiving touches on the left half only waits for a double tap its delegate names
  /// (`shouldRequireFailureOf`), and never hears of a tap on the right half; a tab bar whose hit
  /// area overhangs by 20 points lets its centre button take a tap above the bar (seed 002's
  /// overhanging tab bar button); the button keeps its touches (`passesTouches` false), so the bar
  /// never hears of them.
  @Test func delegateAnswersAndAHitArea() throws {
    let lines = try Self.replaySynthesized("scene-delegates")
    try Self.expectLines(lines, "scene-delegates.expected")
    #expect(!lines.contains { $0.contains("\"id\":\"never\", \"state\":\"recognized\"") })
    #expect(
      lines.filter { $0.contains("\"kind\":\"recognizer\", \"id\":\"left\", \"state\":\"recognized\"") }.count
        == 1)
    #expect(lines.last?.contains("\"view\":\"center\"") == true)
    #expect(!lines.contains { $0.contains("\"responder\":\"tabBar\"") })
  }

  /// One-way prevention and ignored touches: of two single taps on one view, the first engaged
  /// would win; with `"cannotPrevent": ["b"]` on the first, the second wins (it can prevent the
  /// first, which cannot prevent it, so it is served first). A pan ignoring touches that begin in
  /// the top 100 points lets a drag there reach the view whole; lower down, it takes the drag.
  @Test func oneWayPreventionAndIgnoredTouches() throws {
    let lines = try Self.replaySynthesized("scene-prevention")
    try Self.expectLines(lines, "scene-prevention.expected")
    #expect(lines[1] == "{\"t\":1.05, \"kind\":\"recognizer\", \"id\":\"b\", \"state\":\"recognized\"}")
    let drag = lines.filter { $0.hasPrefix("{\"t\":2") }
    #expect(!drag.contains { $0.contains("\"id\":\"pan\"") || $0.contains("touchesCancelled") })
    #expect(drag.contains { $0.contains("touchesEnded") })
  }

  /// A tap on a button in a panel with a tap recognizer: the button's action, the recognizer fails
  /// (the iOS 6 rule); a tap beside it: the recognizer; a press held 0.5 s: the long press, and a
  /// second finger goes to the press, not the panel (seed 000: once a continuous recognizer has
  /// begun, later touches go to it); dropped events cancel the press, whose action method hears
  /// of it.
  @Test func buttonAndDroppedEvents() throws {
    let lines = try Self.replay("button.evemu", "button.json")
    try Self.expectLines(lines, "button.expected")
    #expect(!lines.contains { $0.hasPrefix("{\"t\":3.7, \"kind\":\"touches\"") })
    #expect(lines.contains("{\"t\":3.9, \"kind\":\"action\", \"id\":\"hold\", \"state\":\"cancelled\"}"))
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
        == "r.evemu: no 'A: 35 …' line: the range of ABS_MT_POSITION_X is needed to map the screen (a single-touch panel, ABS_X/ABS_Y only, is not supported)"
    )
    #expect(
      error("A: 35 0 1079 0 0 0\nA: 36 0 2339 0 0 0\nE: 2.0 0000 0000 0\nE: 1.0 0000 0000 0\n")
        == "r.evemu:4: time goes backwards (1.0 after 2.0)")
  }
}
