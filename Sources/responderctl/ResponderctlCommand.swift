import ArgumentParser
import ResponderdKit

/// `responderctl`: talks to the running responderd and runs its offline tools.
@main
struct ResponderctlCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "responderctl",
    abstract: "Control and inspect responderd, and run its offline tools on recordings.",
    version: responderdVersion,
    subcommands: [
      StatusCommand.self, ChainCommand.self, PlayersCommand.self, DevicesCommand.self, MonitorCommand.self,
      SendCommand.self,
      RespondCommand.self,
      KeysCommand.self, MotionCommand.self, TouchCommand.self, InterfacesCommand.self, VersionCommand.self,
    ])
}

/// `responderctl version`.
struct VersionCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "version", abstract: "Print the version of responderctl.")

  func run() throws {
    print("responderctl \(responderdVersion)")
  }
}
