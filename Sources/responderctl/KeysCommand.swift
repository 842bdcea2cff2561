import ResponderConfig
import ResponderTools
import SystemCalls
import TouchScenes

/// `responderctl keys`: the headset and media key tools.
enum KeysCommand {
  static var command: Command {
    Command(name: "keys", abstract: "Headset and media key tools.", subcommands: [KeysReplayCommand.command])
  }
}

/// `responderctl keys replay FILE.evemu [--config F]`.
struct KeysReplayCommand {
  static var command: Command {
    Command(
      name: "replay",
      abstract: "Run the key mapping and click grammar on an evemu recording.",
      discussion: """
        Reads a recording as evemu-record writes it (its N: and I: header lines feed the device \
        rules), runs the daemon's key code on the recording's clock, and prints one JSON object per \
        line for every remote-control event emitted, e.g.
          {"t": 1.75, "type": "remoteControl", "subtype": "nextTrack"}
        t is the time of emission in seconds on the recording's clock. At the end of the file, time \
        runs on until every pending decision has been made. Without --config, the built-in defaults \
        apply.
        """,
      arguments: [
        .positional("file", help: "The evemu recording.", completion: .file),
        .option(
          "--config", help: "Read [keys] settings and device rules from this config file.", completion: .file),
      ]
    ) { try KeysReplayCommand(file: $0.string("file")!, config: $0.string("config")).run() }
  }

  var file: String
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
