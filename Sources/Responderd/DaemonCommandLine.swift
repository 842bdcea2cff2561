/// The command line of `responderd`, parsed by hand: the daemon's few options do not need
/// swift-argument-parser, which would bring Foundation (a few MiB of resident memory) into it.
///
/// It behaves as the ArgumentParser version did: `--name value` or `--name=value`, the last of a
/// repeated option wins, `-h`/`--help` and `--version` print to stdout (exit 0), and a usage error
/// prints `Error: …` with the usage to stderr (exit 64, EX_USAGE).
public struct DaemonCommandLine: Equatable, Sendable {
  /// `--config FILE`: read the config from this file instead of the default places.
  public var config: String?
  /// `--check-config FILE`: check a config file, print what is wrong, and exit.
  public var checkConfig: String?
  /// `--log-level LEVEL`: overrides the config's.
  public var logLevel: String?
  /// `--user USER`: whom to run as when started as root.
  public var user = "nobody"
  /// `--allow-root`: stay root when started as root (test containers only).
  public var allowRoot = false

  public init() {}

  /// What the command line asks for.
  public enum Action: Equatable, Sendable {
    case run(DaemonCommandLine)
    case help
    case version
  }

  /// A usage error; `text` is what to print on stderr.
  public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    /// The help line of the option concerned, when there is one.
    public var optionHelp: String?

    public var text: String {
      var lines = ["Error: \(message)"]
      if let optionHelp { lines.append("Help:  \(optionHelp)") }
      lines.append("Usage: \(DaemonCommandLine.usage)")
      lines.append("  See 'responderd --help' for more information.")
      return lines.joined(separator: "\n") + "\n"
    }

    public var description: String { message }
  }

  /// The options that take a value: name, value name, help.
  private static let valueOptions: [(name: String, value: String, help: String)] = [
    ("--config", "<config>", "Read the config from this file instead of the default places."),
    ("--check-config", "<check-config>", "Check a config file, print what is wrong, and exit."),
    (
      "--log-level", "<log-level>",
      "Log level (trace, debug, info, notice, warning, error); overrides the config."
    ),
    ("--user", "<user>", "When started as root: the user to run as (default: nobody)."),
  ]

  /// The usage line.
  public static let usage =
    "responderd [--config <config>] [--check-config <check-config>] [--log-level <log-level>] [--user <user>] [--allow-root]"

  /// `responderd --help`.
  public static let help = """
    OVERVIEW: Headset/media keys, MPRIS and shakes as iOS-style events for a chain
    of responders.

    Runs in the foreground as the user (never as root) and logs to stderr. Reads
    $XDG_CONFIG_HOME/responderd/config.toml, else /etc/xdg/responderd/config.toml,
    else built-in defaults. Stops cleanly on SIGTERM or SIGINT.

    USAGE: \(usage)

    OPTIONS:
      --config <config>       Read the config from this file instead of the default
                              places.
      --check-config <check-config>
                              Check a config file, print what is wrong, and exit.
      --log-level <log-level> Log level (trace, debug, info, notice, warning,
                              error); overrides the config.
      --user <user>           When started as root: the user to run as (default:
                              nobody).
      --allow-root            Stay root when started as root (test harnesses in
                              containers only; never in a session).
      --version               Show the version.
      -h, --help              Show help information.

    """

  /// Parses the arguments (without the program name).
  public static func parse(_ arguments: [String]) throws(UsageError) -> Action {
    let options = arguments.prefix { $0 != "--" }
    if options.contains("-h") || options.contains("--help") { return .help }
    if options.contains("--version") { return .version }

    var result = DaemonCommandLine()
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        if index < arguments.count { throw UsageError(message: "Unexpected argument '\(arguments[index])'") }
        break
      }
      guard argument.hasPrefix("-"), argument.count > 1 else {
        throw UsageError(message: "Unexpected argument '\(argument)'")
      }
      var name = argument
      var attached: String?
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        attached = String(argument[argument.index(after: equals)...])
      }
      if name == "--allow-root" {
        if let attached {
          throw UsageError(
            message: "The option '--allow-root' does not take any value, but '\(attached)' was specified.")
        }
        result.allowRoot = true
        continue
      }
      guard let option = valueOptions.first(where: { $0.name == name }) else {
        throw UsageError(message: "Unknown option '\(name)'")
      }
      let value: String
      if let attached {
        value = attached
      } else if index < arguments.count, !arguments[index].hasPrefix("-") {
        value = arguments[index]
        index += 1
      } else {
        throw UsageError(
          message: "Missing value for '\(option.name) \(option.value)'",
          optionHelp: "\(option.name) \(option.value)  \(option.help)")
      }
      switch option.name {
      case "--config": result.config = value
      case "--check-config": result.checkConfig = value
      case "--log-level": result.logLevel = value
      default: result.user = value
      }
    }
    return .run(result)
  }
}
