import ResponderTools
import Testing
import TouchScenes

/// `responderctl touch synth`: strokes in, an evemu recording out, which `touch replay` plays with
/// every finger where its stroke says.
@Suite struct TouchSynthTests {
  static let strokes = """
    {"screen": {"width": 400, "height": 800}, "hz": 60,
     "strokes": [
      {"slot": 0, "points": [[1.0, 100, 200], [1.08, 100, 200]]},
      {"slot": 0, "points": [[2.0, 50, 400], [2.3, 250, 400]]},
      {"slot": 1, "points": [[2.1, 300, 700], [2.2, 300, 650]]}
     ]}
    """
  static let scene = """
    {"screen": {"width": 400, "height": 800, "rotation": 0},
     "views": [{"id": "A", "frame": [0, 0, 400, 800], "multipleTouch": true}],
     "recognizers": [{"id": "t", "kind": "tap", "view": "A"}]}
    """

  static func replay(_ strokes: String) throws -> [String] {
    let recording = TouchSynth.recording(try TouchSynth.parse(strokes, file: "strokes.json"))
    var lines: [String] = []
    try TouchReplay.run(
      recording: recording, recordingFile: "synth.evemu", scene: scene, sceneFile: "scene.json"
    ) { lines.append($0) }
    return lines
  }

  @Test func fingersAreWhereTheStrokesSay() throws {
    let lines = try Self.replay(Self.strokes)
    let touches = lines.filter { $0.contains("\"kind\":\"touches\"") }
    #expect(
      touches.first
        == "{\"t\":1, \"kind\":\"touches\", \"method\":\"touchesBegan\", \"view\":\"A\", \"touches\":[{\"slot\":0,\"phase\":\"began\",\"x\":100,\"y\":200,\"viewX\":100,\"viewY\":200,\"tapCount\":1}]}"
    )
    // The tap (0.08 s in place) is recognized at its lift.
    #expect(lines.contains("{\"t\":1.08, \"kind\":\"recognizer\", \"id\":\"t\", \"state\":\"recognized\"}"))
    // Each finger lifts where its stroke ends, the drag at 250,400 after 0.3 s, the second finger
    // at 300,650; both move together in between (frames at 60 Hz).
    #expect(
      touches.contains(
        "{\"t\":2.2, \"kind\":\"touches\", \"method\":\"touchesEnded\", \"view\":\"A\", \"touches\":[{\"slot\":1,\"phase\":\"ended\",\"x\":300,\"y\":650,\"viewX\":300,\"viewY\":650,\"tapCount\":1}]}"
      ))
    #expect(
      touches.last
        == "{\"t\":2.3, \"kind\":\"touches\", \"method\":\"touchesEnded\", \"view\":\"A\", \"touches\":[{\"slot\":0,\"phase\":\"ended\",\"x\":250,\"y\":400,\"viewX\":250,\"viewY\":400,\"tapCount\":1}]}"
    )
    #expect(touches.contains { $0.contains("\"slot\":0,\"phase\":\"moved\"") && $0.contains("\"slot\":1") })
    let moves = touches.filter { $0.hasPrefix("{\"t\":2.") && $0.contains("touchesMoved") }
    // 2.0 → 2.3 at 60 Hz: 17 frames between the down and the lift, and the last point, at 2.3.
    #expect(moves.count == 18)
  }

  @Test func mistakesSayWhereTheyAre() throws {
    func message(_ text: String) -> String {
      do {
        _ = try TouchSynth.parse(text, file: "s.json")
        return "no error"
      } catch {
        return "\(error)"
      }
    }
    #expect(
      message(#"{"screen":{"width":10,"height":10},"strokes":[{"slot":0,"points":[[1,2,3]]}]}"#)
        == "s.json:1:47: strokes[0]: points: a stroke needs two points at least (where it goes down, where it lifts)"
    )
    #expect(
      message(#"{"screen":{"width":10,"height":10},"strokes":[{"slot":0,"points":[[1,2,3],[2,20,3]]}]}"#)
        == "s.json:1:75: strokes[0].points: (20.0, 3.0) is off the 10.0 × 10.0 screen")
    #expect(
      message(
        #"{"screen":{"width":10,"height":10},"strokes":[{"slot":0,"points":[[1,2,3],[2,2,3]]},{"slot":0,"points":[[1.5,2,3],[3,2,3]]}]}"#
      ) == "s.json:1:85: strokes[1]: slot 0 is still down (its earlier stroke lifts at 2.0)")
    #expect(
      message(#"{"screen":{"width":10,"height":10},"strokes":[]}"#)
        == "s.json:1:1: strokes: expected at least one stroke")
  }
}
