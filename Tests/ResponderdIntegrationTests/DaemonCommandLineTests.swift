import DBusTestSupport
import Foundation
import ResponderdKit
import Testing

@Suite struct DaemonCommandLineTests {
  typealias Line = DaemonCommandLine

  func options(_ arguments: [String]) throws -> Line {
    guard case .run(let options) = try Line.parse(arguments) else {
      Issue.record("\(arguments) did not parse as options to run with")
      return Line()
    }
    return options
  }

  func usageError(_ arguments: [String]) -> Line.UsageError? {
    do {
      _ = try Line.parse(arguments)
      return nil
    } catch {
      return error
    }
  }

  @Test func noArgumentsRunWithTheDefaults() throws {
    let defaults = try options([])
    #expect(defaults == Line())
    #expect(defaults.user == nil)
    #expect(!defaults.allowRoot)
    #expect(defaults.config == nil && defaults.checkConfig == nil && defaults.logLevel == nil)
  }

  @Test func everyOptionTakesItsValueSeparateOrAfterAnEqualsSign() throws {
    let parsed = try options([
      "--config", "/tmp/a.toml", "--log-level=debug", "--user", "alice", "--allow-root",
      "--check-config=b.toml",
    ])
    #expect(parsed.config == "/tmp/a.toml")
    #expect(parsed.logLevel == "debug")
    #expect(parsed.user == "alice")
    #expect(parsed.allowRoot)
    #expect(parsed.checkConfig == "b.toml")
    #expect(try options(["--config", "a", "--config", "b"]).config == "b")  // the last one wins
    #expect(try options(["--config=-odd-name.toml"]).config == "-odd-name.toml")
  }

  @Test func helpAndVersionWinOverEverythingElse() throws {
    #expect(try Line.parse(["--help"]) == .help)
    #expect(try Line.parse(["--config", "x", "-h"]) == .help)
    #expect(try Line.parse(["--bogus", "--help"]) == .help)
    #expect(try Line.parse(["--version"]) == .version)
    #expect(try Line.parse(["--allow-root", "--version"]) == .version)
  }

  @Test func completionScriptsForBashZshAndFishNameEveryOption() throws {
    for shell in ["bash", "zsh", "fish"] {
      guard case .completionScript(let script) = try Line.parse(["--generate-completion-script", shell])
      else {
        Issue.record("no \(shell) script")
        continue
      }
      #expect(try Line.parse(["--generate-completion-script=\(shell)"]) == .completionScript(script))
      for option in ["config", "check-config", "log-level", "user", "allow-root", "version", "help"] {
        #expect(script.contains(option), "\(shell): \(option)")
      }
    }
    #expect(
      usageError(["--generate-completion-script", "csh"])?.message.contains("'csh' is invalid") == true)
    #expect(
      usageError(["--generate-completion-script"])?.message
        == "Missing value for '--generate-completion-script <shell>'")
  }

  @Test func theBashCompletionLoadsAndCompletesOptionsAndLevels() throws {
    guard case .completionScript(let script) = try Line.parse(["--generate-completion-script", "bash"]) else {
      Issue.record("no bash script")
      return
    }
    let (status, text, _) = try ChildProcess.runSeparately([
      "/bin/bash", "-c",
      script
        + "\nCOMP_WORDS=(responderd --log-level de); COMP_CWORD=2; _responderd; echo \"${COMPREPLY[*]}\""
        + "\nCOMP_WORDS=(responderd --all); COMP_CWORD=1; _responderd; echo \"${COMPREPLY[*]}\"",
    ])
    #expect(status == 0)
    #expect(text == "debug\n--allow-root\n")
  }

  @Test func mistakesAreUsageErrorsWithTheUsageLine() throws {
    let unknown = try #require(usageError(["--bogus"]))
    #expect(unknown.message == "Unknown option '--bogus'")
    #expect(
      unknown.text == """
        Error: Unknown option '--bogus'
        Usage: responderd [--config <config>] [--check-config [<check-config>]] [--log-level <log-level>] [--user <user>] [--allow-root]
          See 'responderd --help' for more information.

        """)
    #expect(usageError(["-x"])?.message == "Unknown option '-x'")
    #expect(usageError(["extra"])?.message == "Unexpected argument 'extra'")
    #expect(usageError(["--", "extra"])?.message == "Unexpected argument 'extra'")
    #expect(
      usageError(["--allow-root=1"])?.message
        == "The option '--allow-root' does not take any value, but '1' was specified.")
    let missing = try #require(usageError(["--config"]))
    #expect(missing.message == "Missing value for '--config <config>'")
    #expect(
      missing.text.contains(
        "Help:  --config <config>  Read the config from this file instead of the default places."))
    #expect(
      usageError(["--log-level", "--allow-root"])?.message == "Missing value for '--log-level <log-level>'")
  }

  @Test func helpNamesEveryOptionAndTheDefaultConfigPlaces() {
    for option in [
      "--config <config>", "--check-config [<check-config>]", "--log-level <log-level>", "--user <user>",
    ] {
      #expect(Line.help.contains(option))
    }
    for flag in ["--allow-root", "--version", "-h, --help"] { #expect(Line.help.contains(flag)) }
    #expect(
      Line.help.contains("$XDG_CONFIG_HOME/responderd/config.toml, else /etc/xdg/responderd/config.toml"))
    #expect(Line.help.split(separator: "\n").allSatisfy { $0.count <= 80 || $0.hasPrefix("USAGE:") })
  }

  @Test func theBuiltDaemonPrintsHelpAndVersionAndRefusesMistakesWithExitCode64() throws {
    let daemon = builtExecutable("responderd")
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
      try ChildProcess.runSeparately([daemon.path] + arguments)
    }
    let help = try run(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout == Line.help)
    let version = try run(["--version"])
    #expect(version.status == 0)
    #expect(version.stdout == responderdVersion + "\n")
    let wrong = try run(["--bogus"])
    #expect(wrong.status == 64)
    #expect(wrong.stdout.isEmpty)
    #expect(wrong.stderr.hasPrefix("Error: Unknown option '--bogus'\nUsage: responderd "))
  }
}
