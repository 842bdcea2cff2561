import EventTime
import InputCodes
import ResponderCore
import TouchDispatch
import TouchScenes

/// `responderctl touch replay FILE.evemu --scene SCENE.json`: a touchscreen recording played into a
/// scene on virtual time, with the same code as a live window. One JSON object per line comes out,
/// in order, `t` on the recording's clock:
///
/// - `{"t":5.1, "kind":"touches", "method":"touchesBegan", "view":"A", "touches":[{"slot":0,
///   "phase":"began","x":150,"y":300,"tapCount":1}]}` for every delivery to a view (x and y in
///   screen points);
/// - `{"t":5.2, "kind":"recognizer", "id":"t2", "state":"recognized"}` for every state change
///   (including the return to possible), `{"t":5.2, "kind":"action", "id":"t2",
///   "state":"recognized"}` for every action message sent, with what the action method would read
///   of a pan (`"translation":[x,y], "touches":n`), a pinch (`"scale"`) or a rotation
///   (`"rotation"`, radians);
/// - `{"t":5.2, "kind":"control", "view":"B", "event":"touchUpInside"}` for every control event.
///
/// The screen maps linearly onto the recording's ABS_MT_POSITION_X/Y ranges (its `A:` lines),
/// turned by the scene's rotation. Protocol B and protocol A recordings are decoded by the same
/// decoder as the live reader's (`MultitouchDecoder`). At the end of the file, time runs on until every pending timer
/// has fired.
public enum TouchReplay {
  /// Replays `recording` (evemu text) into `scene` (JSON text), calling `output` with each line.
  /// Errors in either file name the file, the line (and column) and the problem.
  public static func run(
    recording recordingText: String, recordingFile: String, scene sceneText: String, sceneFile: String,
    output: (String) -> Void
  ) throws {
    let scene = try TouchScene.parse(sceneText, file: sceneFile)
    let recording: EvemuRecording
    do {
      recording = try EvemuRecording(text: recordingText)
    } catch let error as EvemuRecording.ParseError {
      throw ToolInputError(file: recordingFile, line: error.line, message: error.message)
    }
    guard let xAxis = recording.absoluteAxes[InputCode.ABS_MT_POSITION_X] else {
      throw ToolInputError(
        file: recordingFile,
        message:
          "no 'A: 35 …' line: the range of ABS_MT_POSITION_X is needed to map the screen (a single-touch panel, ABS_X/ABS_Y only, is not supported)"
      )
    }
    guard let yAxis = recording.absoluteAxes[InputCode.ABS_MT_POSITION_Y] else {
      throw ToolInputError(
        file: recordingFile,
        message: "no 'A: 36 …' line: the range of ABS_MT_POSITION_Y is needed to map the screen")
    }
    guard xAxis.maximum > xAxis.minimum, yAxis.maximum > yAxis.minimum else {
      throw ToolInputError(file: recordingFile, message: "ABS_MT_POSITION_X/Y ranges are empty")
    }
    var pressure: ClosedRange<Int32>?
    if let axis = recording.absoluteAxes[InputCode.ABS_MT_PRESSURE], axis.maximum > axis.minimum {
      pressure = axis.minimum...axis.maximum
    }
    let calibration = TouchCalibration(
      xRange: xAxis.minimum...xAxis.maximum, yRange: yAxis.minimum...yAxis.maximum,
      screen: Size(width: scene.screen.width, height: scene.screen.height), rotation: scene.screen.rotation,
      pressureRange: pressure)

    let scheduler = VirtualScheduler(now: recording.events.first?.time ?? 0)
    let world = SceneWorld(scene: scene, scheduler: scheduler)
    var lines: [String] = []
    world.emit = { lines.append($0) }
    let input = TouchscreenInput(
      window: world.window, calibration: calibration, source: "replay:\(recordingFile)")
    func flush() {
      for line in lines { output(line) }
      lines.removeAll()
    }
    for event in recording.events {
      scheduler.advance(to: event.time)
      input.handle(event)
      flush()
    }
    scheduler.runUntilIdle()
    flush()
  }
}
