import DBusTestSupport
import Foundation
import ResponderdKit
import Testing

/// responderctl's command line as a user meets it (the built binary, no bus needed): the help of
/// every command, the mistakes it names, and the shell completions the package installs.
@Suite struct ResponderctlCommandLineTests {
  let directory: String

  init() throws { directory = try scratchDirectory("rsp-cli") }

  func responderctl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try responderctlWithoutABus(arguments, in: directory)
  }

  /// The commands a user can type, with their subcommands.
  static let commands: [String: [String]] = [
    "status": [], "chain": [], "players": [], "devices": [], "monitor": [],
    "send": ["remoteControl", "motion"], "respond": [], "keys": ["replay"],
    "motion": ["analyze", "record", "watch"], "touch": ["replay", "synth", "convert"], "interfaces": [],
    "version": [],
  ]

  @Test func theHelpListsEveryCommandWithWhatItDoes() throws {
    let help = try responderctl(["--help"])
    #expect(help.status == 0 && help.stderr.isEmpty)
    #expect(
      help.stdout.hasPrefix(
        "OVERVIEW: Control and inspect responderd, and run its offline tools on\nrecordings.\n"))
    #expect(help.stdout.contains("USAGE: responderctl <subcommand>\n"))
    let subcommands = help.stdout.components(separatedBy: "SUBCOMMANDS:\n").last ?? ""
    for command in Self.commands.keys {
      #expect(
        subcommands.split(separator: "\n").contains { $0.hasPrefix("  \(command) ") },
        "\(command): \(help.stdout)")
    }
    #expect(subcommands.contains("  status                  Show whether responderd is running"))
    #expect(help.stdout.contains("  --version               Show the version.\n"))
    #expect(help.stdout.contains("See 'responderctl help <subcommand>' for detailed help."))
    #expect(help.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(help.stdout)")
    // No command at all, `-h` and `help` print the same.
    #expect(try responderctl([]).stdout == help.stdout)
    #expect(try responderctl(["-h"]).stdout == help.stdout)
    #expect(try responderctl(["help"]).stdout == help.stdout)

    for (command, subcommands) in Self.commands where !subcommands.isEmpty {
      let group = try responderctl([command])
      #expect(group.status == 0, "\(command)")
      #expect(group.stdout.contains("USAGE: responderctl \(command) <subcommand>"), "\(command)")
      for subcommand in subcommands {
        #expect(group.stdout.contains("\n  \(subcommand) "), "\(command) \(subcommand): \(group.stdout)")
        // `help A B`, `A B --help` and `A -h B` are one text.
        let text = try responderctl(["help", command, subcommand])
        #expect(text.status == 0)
        #expect(text.stdout.contains("USAGE: responderctl \(command) \(subcommand) "), "\(text.stdout)")
        #expect(try responderctl([command, subcommand, "--help"]).stdout == text.stdout)
        #expect(try responderctl([command, "-h", subcommand]).stdout == text.stdout)
      }
    }
  }

  @Test func aCommandsHelpGivesItsArgumentsOptionsAndDefaults() throws {
    let record = try responderctl(["motion", "record", "--help"]).stdout
    #expect(
      record.contains(
        "USAGE: responderctl motion record [--interval <interval>] [--duration <duration>] [--device-motion] [--output <output>] [--direct] [--config <config>]\n"
      ), "\(record)")
    #expect(
      record.contains(
        "  --interval <interval>   Seconds between samples (through responderd).\n                          (default: 0.02)\n"
      ), "\(record)")
    #expect(record.contains("  -o, --output <output>   Write the trace to this file instead of standard\n"))
    #expect(
      record.contains("  --duration, --seconds <duration>\n                          Stop after this many"))
    #expect(record.contains("OVERVIEW: Record the running responderd's samples"))
    #expect(!record.contains("--version"))

    let replay = try responderctl(["help", "keys", "replay"]).stdout
    #expect(replay.contains("USAGE: responderctl keys replay <file> [--config <config>]\n"), "\(replay)")
    #expect(replay.contains("ARGUMENTS:\n  <file>                  The evemu recording.\n"))
    // The discussion's example line keeps its indentation.
    #expect(replay.contains("\n  {\"t\": 1.75, \"type\": \"remoteControl\", \"subtype\": \"nextTrack\"}\n"))
    let respond = try responderctl(["respond", "--help"]).stdout
    #expect(
      respond.contains(
        "USAGE: responderctl respond [--events <events>] [--no-first-responder] [-- <command> ...]\n"))
    let watch = try responderctl(["motion", "watch", "--help"]).stdout
    #expect(watch.contains("(values: g, m/s2;\n                          default: g)"), "\(watch)")
    // The exit codes of every command, in the top help.
    #expect(try responderctl(["--help"]).stdout.contains(ExitCodes.helpText))
  }

  @Test func aMistypedCommandGetsADidYouMeanAndTheCommandsThereAre() throws {
    let typo = try responderctl(["touch", "replya", "x.evemu"])
    #expect(typo.status == ExitCodes.usage.rawValue)
    #expect(typo.stdout.isEmpty)
    #expect(
      typo.stderr
        == "responderctl: unknown command 'touch replya' (did you mean 'replay'?); one of: replay, synth, convert (see 'responderctl touch --help')\n"
    )
    let help = try responderctl(["help", "motion", "wacth"])
    #expect(help.status == ExitCodes.usage.rawValue)
    #expect(help.stderr.contains("unknown command 'motion wacth' (did you mean 'watch'?)"), "\(help.stderr)")
    // Nothing close: no guess, the list.
    let far = try responderctl(["frobnicate"])
    #expect(far.status == ExitCodes.usage.rawValue)
    #expect(
      far.stderr.hasPrefix("responderctl: unknown command 'frobnicate'; one of: status, chain, players"))
  }

  @Test func anUnknownOptionIsNamedWithTheUsageOfItsCommand() throws {
    let typo = try responderctl(["status", "--jsn"])
    #expect(typo.status == ExitCodes.usage.rawValue)
    #expect(
      typo.stderr == """
        Error: Unknown option '--jsn'. Did you mean '--json'?
        Usage: responderctl status [--json]
          See 'responderctl status --help' for more information.

        """)
    let deep = try responderctl(["motion", "record", "--devce-motion"])
    #expect(
      deep.stderr.hasPrefix("Error: Unknown option '--devce-motion'. Did you mean '--device-motion'?\n"))
    let far = try responderctl(["chain", "--everything"])
    #expect(far.status == ExitCodes.usage.rawValue)
    #expect(
      far.stderr.hasPrefix("Error: Unknown option '--everything'\nUsage: responderctl chain [--json]\n"))
  }

  @Test func missingAndInvalidValuesAreUsageErrorsThatNameTheOption() throws {
    let cases: [([String], String)] = [
      (["monitor", "--count"], "Error: Missing value for '--count <count>'\n"),
      (["monitor", "--count", "many"], "Error: The value 'many' is invalid for '--count <count>'\n"),
      (
        ["motion", "watch", "--units", "furlongs"],
        "Error: The value 'furlongs' is invalid for '--units <units>'; one of: g, m/s2\n"
      ),
      (["keys", "replay"], "Error: Missing expected argument '<file>'\n"),
      (["touch", "replay", "x.evemu"], "Error: Missing expected argument '--scene <scene>'\n"),
      (["status", "extra"], "Error: Unexpected argument 'extra'\n"),
      (
        ["status", "--json=yes"],
        "Error: The option '--json' does not take any value, but 'yes' was specified.\n"
      ),
      (["motion", "watch", "--interval", "0"], "Error: --interval must be positive\n"),
      (["respond", "--events", "motion"], "Error: give the command to run after --\n"),
    ]
    for (arguments, message) in cases {
      let result = try responderctl(arguments)
      #expect(result.status == ExitCodes.usage.rawValue, "\(arguments)")
      #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
      #expect(
        result.stderr.contains("\nUsage: responderctl \(arguments[0]) "), "\(arguments): \(result.stderr)")
    }
  }

  @Test func optionValuesComeSeparateOrAfterAnEqualsSign() throws {
    for (index, arguments) in [["--output", "\(directory)/a"], ["--output=\(directory)/b"]].enumerated() {
      let path = arguments.count == 2 ? arguments[1] : "\(directory)/b"
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      let result = try responderctl(["interfaces"] + arguments)
      #expect(result.status == 0, "\(index): \(result.stderr)")
      #expect(result.stdout.contains("\(path)/org.responderd.Daemon1.xml"))
      #expect(FileManager.default.fileExists(atPath: "\(path)/org.responderd.Daemon1.xml"))
      #expect(try responderctl(["interfaces", "--check", path]).status == 0)
    }
  }

  @Test func completionScriptsNameEveryCommandAndTheBashOneCompletes() throws {
    for shell in ["bash", "zsh", "fish"] {
      let script = try responderctl(["--generate-completion-script", shell])
      #expect(script.status == 0, "\(shell): \(script.stderr)")
      #expect(try responderctl(["--generate-completion-script=\(shell)"]).stdout == script.stdout)
      for (command, subcommands) in Self.commands {
        for word in [command] + subcommands { #expect(script.stdout.contains(word), "\(shell): \(word)") }
      }
      for option in ["--json", "--device-motion", "--scene", "--no-first-responder", "--units"] {
        #expect(script.stdout.contains(option.dropFirst(2)), "\(shell): \(option)")
      }
    }
    let wrong = try responderctl(["--generate-completion-script", "csh"])
    #expect(wrong.status == ExitCodes.usage.rawValue)
    #expect(wrong.stderr.contains("'csh' is invalid"))

    let bash = try responderctl(["--generate-completion-script", "bash"]).stdout
    func complete(_ words: [String]) throws -> String {
      let line = words.map { "'\($0)'" }.joined(separator: " ")
      let (status, text, error) = try ChildProcess.runSeparately([
        "/bin/bash", "-c",
        bash
          + "\nCOMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _responderctl; echo \"${COMPREPLY[*]}\"",
      ])
      #expect(status == 0, "\(error)")
      return text
    }
    #expect(try complete(["responderctl", "mo"]) == "monitor motion\n")
    #expect(
      try complete(["responderctl", "motion", "record", "--d"]) == "--duration --device-motion --direct\n")
    #expect(try complete(["responderctl", "motion", "watch", "--units", ""]) == "g m/s2\n")
    #expect(try complete(["responderctl", "send", "remote-control", "next"]) == "nextTrack\n")
    #expect(try complete(["responderctl", "send", "motion", "--json", "c"]) == "cancelled\n")
  }
}
