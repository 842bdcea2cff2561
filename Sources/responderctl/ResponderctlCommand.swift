import ResponderConfig
import ResponderTools
import ResponderdKit
import SystemCalls
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

/// `responderctl`: talks to the running responderd and runs its offline tools.
@main
enum ResponderctlCommand {
  /// The commands, their options and their help (`CommandLineParser.swift` reads the line).
  static var root: Command {
    Command(
      name: "responderctl",
      abstract: "Control and inspect responderd, and run its offline tools on recordings.",
      discussion: ExitCodes.helpText,
      subcommands: [
        StatusCommand.command, ChainCommand.command, PlayersCommand.command, DevicesCommand.command,
        MonitorCommand.command, SendCommand.command, RespondCommand.command, KeysCommand.command,
        MotionCommand.command, TouchCommand.command, InterfacesCommand.command,
        Command(name: "version", abstract: "Print the version of responderctl.") { _ in
          print("responderctl \(responderdVersion)")
        },
      ])
  }

  /// Parses and runs the command; a mistake on the command line exits with 64 (EX_USAGE), the
  /// errors the commands throw with the codes of `ExitCodes` (the messages start with
  /// `responderctl:`).
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do throws(UsageError) {
      switch try root.parse(arguments) {
      case .help(let path): writeText(Command.help(path), to: .standardOutput)
      case .version: writeText("responderctl \(responderdVersion)\n", to: .standardOutput)
      case .completionScript(let script): writeText(script, to: .standardOutput)
      case .run(let parsed): run(parsed)
      }
    } catch {
      writeText(Command.errorText(error), to: .standardError)
      exit(ExitCodes.usage.rawValue)
    }
    exit(0)
  }

  /// Runs the command and exits with what it ended with.
  private static func run(_ parsed: ParsedArguments) {
    do {
      try parsed.command.run?(parsed)
    } catch let error as ExitCode {
      exit(error.status)
    } catch let error as ValidationError {
      writeText(Command.errorText(UsageError(message: error.message, path: parsed.path)), to: .standardError)
      exit(ExitCodes.usage.rawValue)
    } catch let error as UsageError {
      writeText(Command.errorText(error), to: .standardError)
      exit(ExitCodes.usage.rawValue)
    } catch {
      writeText("responderctl: \(error)\n", to: .standardError)
      exit((status(of: error) ?? .failure).rawValue)
    }
  }

  /// The exit status of an error the tools throw.
  static func status(of error: Error) -> ExitCodes? {
    switch error {
    case is ConfigError: .config
    case let error as ToolFileError: error.status
    case is ToolInputError, is KeysReplay.Error: .dataError
    default: nil
    }
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
