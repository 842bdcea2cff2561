import ArgumentParser
import ResponderConfig
import ResponderTools
import SystemCalls
import TouchScenes

/// `responderctl keys`: the headset and media key tools.
struct KeysCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keys", abstract: "Headset and media key tools.",
    subcommands: [KeysReplayCommand.self])
}

/// `responderctl keys replay FILE.evemu [--config F]`.
struct KeysReplayCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Run the key mapping and click grammar on an evemu recording.",
    discussion: """
      Reads a recording as evemu-record writes it (its N: and I: header lines feed the device \
      rules), runs the daemon's key code on the recording's clock, and prints one JSON object per \
      line for every remote-control event emitted, e.g.
        {"t": 1.75, "type": "remoteControl", "subtype": "nextTrack"}
      t is the time of emission in seconds on the recording's clock. At the end of the file, time \
      runs on until every pending decision has been made. Without --config, the built-in defaults \
      apply.
      """)

  @Argument(help: "The evemu recording.")
  var file: String

  @Option(name: .long, help: "Read [keys] settings and device rules from this config file.")
  var config: String?

  func run() throws {
    // A refused config exits 78, an unreadable file 66, a recording not understood 65
    // (`ResponderctlCommand.status(of:)`).
    let settings = try config.map { try ResponderdConfig.load(path: $0) } ?? ResponderdConfig()
    let text = try readInputFile(file)
    let result = try KeysReplay.run(text: text, file: file, settings: settings.keys.settings)
    if result.profile.isIgnored {
      writeText(
        "responderctl: '\(result.identity.name)' is ignored by a device rule: no events\n",
        to: .standardError)
    }
    for line in result.jsonLines { print(line) }
  }
}
