import DBusTestSupport
import Foundation
import ResponderdKit
import Testing

/// The exit codes a user gets: each command's failure run for real, and the one table in both
/// programs' `--help`, both man pages and the README.
@Suite struct ExitCodesTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  let directory: String

  init() throws { directory = try scratchDirectory("rsp-exit") }

  func responderctl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try responderctlWithoutABus(arguments, in: directory)
  }

  func write(_ name: String, _ text: String) throws -> String {
    let path = "\(directory)/\(name)"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// A command line, the code it must exit with and what its stderr must contain.
  struct Case {
    var arguments: [String]
    var status: ExitCodes
    var stderr: String
    init(_ arguments: [String], _ status: ExitCodes, _ stderr: String) {
      self.arguments = arguments
      self.status = status
      self.stderr = stderr
    }
  }

  @Test func eachCommandsFailureExitsWithItsCode() throws {
    let missing = "\(directory)/missing"
    let garbage = try write("garbage.txt", "this is not a recording\n")
    let badConfig = try write("bad.toml", "chain = \"log\"\n")
    let notUTF8 = "\(directory)/latin1.yml"
    _ = FileManager.default.createFile(atPath: notUTF8, contents: Data([0x6E, 0xE9, 0x0A]))
    let emptyDir = "\(directory)/empty"
    try FileManager.default.createDirectory(atPath: emptyDir, withIntermediateDirectories: true)
    let trace = try write("trace.csv", "t,x,y,z\n0,0,0,9.8\n0.02,0,0,9.8\n")
    let scene = try write("scene.json", "{\"screen\": {\"width\": 100, \"height\": 100}, \"views\": []}")
    let cases: [Case] = [
      Case(["status"], .unavailable, "responderctl: responderd is not running on the session bus ("),
      Case(["send", "remoteControl", "pause"], .unavailable, "responderctl: responderd is not running"),
      Case(["stauts"], .usage, "responderctl: unknown command 'stauts' (did you mean 'status'?)"),
      Case(
        ["motion", "analyse", trace], .usage, "unknown command 'motion analyse' (did you mean 'analyze'?)"),
      Case(["status", "--jsn"], .usage, "Unknown option '--jsn'"),
      Case(["keys", "replay", missing], .noInput, "responderctl: \(missing): cannot read the file: "),
      Case(["keys", "replay", garbage], .dataError, "responderctl: \(garbage):1: "),
      Case(["keys", "replay", garbage, "--config", badConfig], .config, "responderctl: \(badConfig):1: "),
      Case(["motion", "analyze", missing], .noInput, "responderctl: \(missing): cannot read the file: "),
      Case(["motion", "analyze", garbage], .dataError, "responderctl: \(garbage):1"),
      Case(["motion", "analyze", trace, "--config", badConfig], .config, "responderctl: \(badConfig):1: "),
      Case(
        ["motion", "analyze", trace, "--plot", "\(missing)/plot.svg"], .cannotCreate, "cannot write the file"),
      Case(
        ["touch", "replay", missing, "--scene", scene], .noInput,
        "responderctl: \(missing): cannot read the file"),
      Case(["touch", "convert", missing], .noInput, "responderctl: \(missing): cannot read the file: "),
      Case(["touch", "convert", notUTF8], .dataError, "responderctl: \(notUTF8): not UTF-8 text"),
      Case(["touch", "replay", garbage, "--scene", scene], .dataError, "responderctl: \(garbage)"),
      Case(["touch", "synth", garbage], .dataError, "responderctl: \(garbage)"),
      Case(["interfaces", "--output", "\(missing)/dir"], .cannotCreate, "cannot write the file"),
      Case(["interfaces", "--check", emptyDir], .failure, "differs from the interface responderd exports"),
    ]
    for (arguments, status, stderr) in cases.map({ ($0.arguments, $0.status, $0.stderr) }) {
      let result = try responderctl(arguments)
      #expect(
        result.status == status.rawValue, "responderctl \(arguments.joined(separator: " ")): \(result.stderr)"
      )
      #expect(
        result.stderr.contains(stderr), "responderctl \(arguments.joined(separator: " ")): \(result.stderr)")
      // Its own messages start with "responderctl:"; ArgumentParser's usage errors with "Error:".
      #expect(
        status == .usage || !result.stderr.hasPrefix("Error: "),
        "responderctl \(arguments.joined(separator: " ")): \(result.stderr)")
    }

    let daemon = try BuiltProducts.path(of: "responderd")
    let usage = try ChildProcess.runSeparately([daemon, "--bogus"])
    #expect(usage.status == ExitCodes.usage.rawValue)
    let config = try ChildProcess.runSeparately([daemon, "--check-config", badConfig])
    #expect(config.status == ExitCodes.config.rawValue)
  }

  @Test func versionAndDashDashVersionSayTheSame() throws {
    let command = try responderctl(["version"])
    let option = try responderctl(["--version"])
    #expect(command.status == 0 && option.status == 0)
    #expect(command.stdout == "responderctl \(responderdVersion)\n")
    #expect(option.stdout == command.stdout)
  }

  @Test func theTableIsTheSameInTheHelpTheManPagesAndTheReadme() throws {
    func read(_ path: String) throws -> String {
      try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }
    let readme = try read("README.md")
    let pages = try ["packaging/man/responderd.1", "packaging/man/responderctl.1"].map { ($0, try read($0)) }
    let ctlHelp = try responderctl(["--help"]).stdout
    let daemonHelp = try ChildProcess.runSeparately([try BuiltProducts.path(of: "responderd"), "--help"])
      .stdout
    #expect(ctlHelp.contains(ExitCodes.helpText))
    #expect(daemonHelp.contains(ExitCodes.helpText))
    for status in ExitCodes.allCases {
      #expect(readme.contains("| \(status.rawValue) | \(status.meaning) |"), "README.md: \(status)")
      let roff = status.meaning.replacingOccurrences(of: "`", with: "").replacingOccurrences(
        of: "-", with: "\\-")
      for (path, page) in pages {
        #expect(page.contains(".TP\n.B \(status.rawValue)\n\(roff)\n"), "\(path): \(status)")
      }
    }
    // No other code in the tables.
    for (path, page) in pages {
      let section =
        page.components(separatedBy: ".SH EXIT STATUS\n").last?.components(separatedBy: ".SH ").first ?? ""
      #expect(section.components(separatedBy: ".TP\n.B ").count - 1 == ExitCodes.allCases.count, "\(path)")
    }
  }
}
