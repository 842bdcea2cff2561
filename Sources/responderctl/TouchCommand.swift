import ResponderTools
import SystemCalls
import TouchScenes

/// `responderctl touch …`: touchscreen tools.
enum TouchCommand {
  static var command: Command {
    Command(
      name: "touch",
      abstract:
        "Touchscreen tools: replay a recording into a scene of views and recognizers; make a recording from strokes; convert a libinput recording.",
      subcommands: [TouchReplayCommand.command, TouchSynthCommand.command, TouchConvertCommand.command])
  }
}

/// `responderctl touch replay FILE.evemu --scene SCENE.json`.
struct TouchReplayCommand {
  static var command: Command {
    Command(
      name: "replay",
      abstract:
        "Play a touchscreen recording into a scene; print every delivery, recognizer change and action.",
      discussion: """
        The recording is what evemu-record writes (its A: lines give the ABS_MT_POSITION_X/Y ranges, \
        which map linearly onto the scene's screen). The scene is JSON: {"screen":{"width":W,"height":H,\
        "rotation":0}, "views":[{"id":"A","parent":null,"frame":[x,y,w,h],"boundsOrigin":[x,y],\
        "transform":[a,b,c,d,tx,ty],"hitArea":[x,y,w,h],"control":"button|switch|slider", …}], \
        "recognizers":[{"id":"t","kind":"tap","view":"A" (or "window"),"shouldBegin":true,\
        "receiveArea":[x,y,w,h],"requireFailureOf":["…"],"cannotPrevent":["…"],"ignoreArea":[x,y,w,h], …}], "viewControllers":[{"id":"vc","view":"A"}]}. \
        Output: one JSON object per line, t on the \
        recording's clock; touches give the screen point (x, y) and the point in the view (viewX, viewY). \
        At the end of the file, time runs on until every pending timer has fired.
        """,
      arguments: [
        .positional("recording", help: "The touchscreen recording (evemu-record format).", completion: .file),
        .option(
          "--scene", help: "The scene: screen, views and recognizers (JSON).", completion: .file,
          isRequired: true),
      ]
    ) { try TouchReplayCommand(recording: $0.string("recording")!, scene: $0.string("scene")!).run() }
  }

  var recording: String
  var scene: String

  func run() throws {
    // An unreadable file exits 66, one not understood 65 (`ResponderctlCommand.status(of:)`).
    let recordingText = try readInputFile(recording)
    let sceneText = try readSceneFile(scene)
    try TouchReplay.run(
      recording: recordingText, recordingFile: recording, scene: sceneText, sceneFile: scene
    ) { line in
      print(line)
    }
  }

  /// The scene file, at most `TouchScene.maximumFileSize` bytes of UTF-8 text: a larger file, a
  /// FIFO or a device is refused before it is read, as the config file is.
  private func readSceneFile(_ path: String) throws -> String {
    let bytes: [UInt8]
    do {
      bytes = try readRegularFile(path, maximumSize: TouchScene.maximumFileSize)
    } catch let refusal as FileRefusal {
      throw TouchScene.refused(path, reason: refusal.reason)
    } catch {
      throw ToolFileError(status: .noInput, description: "\(path): cannot read the file: \(error)")
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw ToolFileError(status: .dataError, description: "\(path): not UTF-8 text")
    }
    return text
  }
}

/// `responderctl touch synth STROKES.json`.
struct TouchSynthCommand {
  static var command: Command {
    Command(
      name: "synth",
      abstract: "Write a touchscreen recording (evemu format) of timed finger strokes, for `touch replay`.",
      discussion: """
        STROKES.json: {"screen":{"width":W,"height":H}, "hz":60, "strokes":[{"slot":0,"points":[[t,x,y], …]}, …]}. \
        Each stroke is a finger in a slot (0…9), down at its first point and lifted at its last, moving in a \
        straight line between its points (seconds, screen points), sampled hz times a second. Replayed into a \
        scene of the same screen, the fingers are where the strokes say.
        """,
      arguments: [.positional("strokes", help: "The strokes (JSON).", completion: .file)]
    ) { try TouchSynthCommand(strokes: $0.string("strokes")!).run() }
  }

  var strokes: String

  func run() throws {
    try printConverted(strokes) { text in TouchSynth.recording(try TouchSynth.parse(text, file: strokes)) }
  }
}

/// `responderctl touch convert FILE.yml`.
struct TouchConvertCommand {
  static var command: Command {
    Command(
      name: "convert",
      abstract: "Turn a `libinput record` recording (YAML) into evemu text, for `touch replay`.",
      discussion: """
        Of the file's first device: the name, id, event codes, properties and axis ranges become the evemu \
        header (N:, I:, B:, P:, A:), and every evdev event an E: line. Writes to standard output.
        """,
      arguments: [
        .positional("recording", help: "The recording `libinput record` wrote (YAML).", completion: .file)
      ]
    ) { try TouchConvertCommand(recording: $0.string("recording")!).run() }
  }

  var recording: String

  func run() throws {
    try printConverted(recording) { text in try LibinputRecord.evemu(fromYAML: text, file: recording) }
  }
}

/// Reads `path` as UTF-8 text, prints what `convert` makes of it; an unreadable file exits 66, one
/// not understood 65 (`ResponderctlCommand.status(of:)`).
private func printConverted(_ path: String, _ convert: (String) throws -> String) throws {
  print(try convert(try readInputFile(path)), terminator: "")
}
