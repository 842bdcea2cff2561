import ArgumentParser
import ResponderConfig
import ResponderTools
import ResponderdKit
import SystemCalls
import TouchScenes

/// `responderctl`: talks to the running responderd and runs its offline tools.
@main
struct ResponderctlCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "responderctl",
    abstract: "Control and inspect responderd, and run its offline tools on recordings.",
    discussion: ExitCodes.helpText,
    version: "responderctl \(responderdVersion)",
    subcommands: [
      StatusCommand.self, ChainCommand.self, PlayersCommand.self, DevicesCommand.self, MonitorCommand.self,
      SendCommand.self,
      RespondCommand.self,
      KeysCommand.self, MotionCommand.self, TouchCommand.self, InterfacesCommand.self, VersionCommand.self,
    ])

  /// Parses and runs the command; a mistyped subcommand gets a "did you mean", and the errors the
  /// commands throw get the exit codes of `ExitCodes` (the messages start with `responderctl:`).
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if let message = unknownSubcommand(in: arguments) {
      writeText("responderctl: \(message)\n", to: .standardError)
      exit(withError: ExitCode(ExitCodes.usage.rawValue))
    }
    do {
      var command = try parseAsRoot(arguments)
      try command.run()
    } catch {
      if let status = status(of: error) {
        writeText("responderctl: \(error)\n", to: .standardError)
        exit(withError: ExitCode(status.rawValue))
      }
      exit(withError: error)
    }
  }

  /// The exit status of an error the tools throw (nil: ArgumentParser's own, e.g. usage).
  static func status(of error: Error) -> ExitCodes? {
    switch error {
    case is ConfigError: .config
    case let error as ToolFileError: error.status
    case is ToolInputError, is KeysReplay.Error, is MotionTraceError: .dataError
    default: nil
    }
  }

  /// "unknown command 'stauts' (did you mean 'status'?)…" when a word where a subcommand goes names
  /// none (before ArgumentParser, which calls it an unexpected argument).
  static func unknownSubcommand(in arguments: [String]) -> String? {
    var command: ParsableCommand.Type = Self.self
    var path = ["responderctl"]
    var previous = ""
    for argument in arguments {
      defer { previous = argument }
      if argument == "--" { return nil }
      if argument.hasPrefix("-") || previous == "--generate-completion-script" { continue }
      let subcommands = command.configuration.subcommands
      guard !subcommands.isEmpty else { return nil }
      if argument == "help" { return nil }
      let names = subcommands.flatMap { [($0.configuration.commandName ?? "")] + $0.configuration.aliases }
      if let next = subcommands.first(where: {
        ([($0.configuration.commandName ?? "")] + $0.configuration.aliases).contains(argument)
      }) {
        command = next
        path.append((next.configuration.commandName ?? ""))
        continue
      }
      let hint = suggestion(for: argument, among: names).map { " (did you mean '\($0)'?)" } ?? ""
      return
        "unknown command '\(path.dropFirst().joined(separator: " ") + (path.count > 1 ? " " : "") + argument)'\(hint); "
        + "one of: \(subcommands.map { $0.configuration.commandName ?? "" }.joined(separator: ", ")) (see '\(path.joined(separator: " ")) --help')"
    }
    return nil
  }
}

/// A file a command could not read (66) or write (73).
struct ToolFileError: Error, CustomStringConvertible {
  var status: ExitCodes
  var description: String
}

/// Reads a whole input file as UTF-8 text: 66 when it cannot be read, 65 when it is not UTF-8.
func readInputFile(_ path: String) throws -> String {
  let bytes: [UInt8]
  do {
    bytes = try readFile(path)
  } catch {
    throw ToolFileError(status: .noInput, description: "\(path): cannot read the file: \(error.errno)")
  }
  guard let text = String(validating: bytes, as: UTF8.self) else {
    throw ToolFileError(status: .dataError, description: "\(path): not UTF-8 text")
  }
  return text
}

/// Writes an output file: 73 when it cannot be written.
func writeOutputFile(_ path: String, _ text: String) throws {
  do {
    try writeTextFile(path, text)
  } catch {
    throw ToolFileError(status: .cannotCreate, description: "\(path): cannot write the file: \(error.errno)")
  }
}

/// `responderctl version`.
struct VersionCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "version", abstract: "Print the version of responderctl.")

  func run() throws {
    print("responderctl \(responderdVersion)")
  }
}
