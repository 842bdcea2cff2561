import ArgumentParser
import Foundation
import Responderd

/// `responderctl players`: the MPRIS players responderd sees, which one it controls and why.
struct PlayersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "players",
    abstract: "List the MPRIS players responderd sees, which one it controls, and why.",
    discussion: """
      Asks the running responderd (org.responderd.Daemon1, object /org/responderd/Daemon1/Players)
      on the session bus. The selected player is marked with '*'; the others say why they are not
      selected (a candidate, ignored by a glob, a proxy such as playerctld, responderd itself, or
      unresponsive after missing a call deadline).
      """)

  @Flag(name: .long, help: "Print JSON instead of text.")
  var json = false

  @Option(name: .long, help: "The bus address to use instead of the session bus.")
  var address: String?

  @Option(name: .long, help: "Seconds to wait for responderd's answer.")
  var timeout: Double = 5

  func run() throws {
    let report: PlayersReport
    do {
      report = try PlayersClient.fetch(address: address, timeout: timeout)
    } catch {
      FileHandle.standardError.write(Data("responderctl players: \(error)\n".utf8))
      throw ExitCode(1)
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      print(String(decoding: try encoder.encode(report), as: UTF8.self))
    } else {
      print(report.text)
    }
  }
}
