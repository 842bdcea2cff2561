import ArgumentParser
import Foundation
import ResponderTools

/// `responderctl touch …`: touchscreen tools.
struct TouchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "touch",
    abstract: "Touchscreen tools: replay a recording into a scene of views and recognizers.",
    subcommands: [TouchReplayCommand.self])
}

/// `responderctl touch replay FILE.evemu --scene SCENE.json`.
struct TouchReplayCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract:
      "Play a touchscreen recording into a scene; print every delivery, recognizer change and action.",
    discussion: """
      The recording is what evemu-record writes (its A: lines give the ABS_MT_POSITION_X/Y ranges, \
      which map linearly onto the scene's screen). The scene is JSON: {"screen":{"width":W,"height":H,\
      "rotation":0}, "views":[{"id":"A","parent":null,"frame":[x,y,w,h], …}], "recognizers":[{"id":"t",\
      "kind":"tap","view":"A", …}]}. Output: one JSON object per line, t on the recording's clock. \
      At the end of the file, time runs on until every pending timer has fired.
      """)

  @Argument(help: "The touchscreen recording (evemu-record format).")
  var recording: String

  @Option(help: "The scene: screen, views and recognizers (JSON).")
  var scene: String

  func run() throws {
    let recordingText = try read(recording)
    let sceneText = try read(scene)
    do {
      try TouchReplay.run(
        recording: recordingText, recordingFile: recording, scene: sceneText, sceneFile: scene
      ) { line in
        print(line)
      }
    } catch let error as ToolInputError {
      FileHandle.standardError.write(Data("responderctl: \(error)\n".utf8))
      throw ExitCode(65)
    }
  }

  private func read(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      FileHandle.standardError.write(Data("responderctl: \(path): cannot read the file\n".utf8))
      throw ExitCode(66)
    }
    guard let text = String(data: data, encoding: .utf8) else {
      FileHandle.standardError.write(Data("responderctl: \(path): not UTF-8 text\n".utf8))
      throw ExitCode(65)
    }
    return text
  }
}
