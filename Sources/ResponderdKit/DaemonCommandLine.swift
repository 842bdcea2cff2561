import ResponderCore

/// The command line of `responderd`, parsed by hand: the daemon's few options do not need
/// swift-argument-parser, which would bring Foundation (a few MiB of resident memory) into it.
///
/// It behaves as the ArgumentParser version did: `--name value` or `--name=value`, the last of a
/// repeated option wins, `-h`/`--help` and `--version` print to stdout (exit 0), and a usage error
/// prints `Error: …` with the usage to stderr (exit 64, EX_USAGE); the hidden
/// `--generate-completion-script bash|zsh|fish` prints a shell completion script (the package
/// installs them).
public struct DaemonCommandLine: Equatable, Sendable {
  /// `--config FILE`: read the config from this file instead of the default places.
  public var config: String?
  /// `--check-config [FILE]`: check a config file, print what is wrong, and exit.
  public var checkConfig: String?
  /// `--check-config` was given (without a FILE: the file the service would load is checked).
  public var checkConfigRequested = false
  /// `--log-level LEVEL`: overrides the config's.
  public var logLevel: String?
  /// `--user USER`: when started as root, the user whose session to serve (run as that user, on
  /// that user's session bus). Nil: started as root, responderd refuses to run (no bus it could use).
  public var user: String?
  /// `--allow-root`: stay root when started as root (test containers only).
  public var allowRoot = false

  public init() {}

  /// What the command line asks for.
  public enum Action: Equatable, Sendable {
    case run(DaemonCommandLine)
    case help
    case version
    /// `--generate-completion-script SHELL`: the script to print.
    case completionScript(String)
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
    (
      "--check-config", "<check-config>",
      "Check a config file (default: the one the service would load), print what is wrong, and exit."
    ),
    (
      "--log-level", "<log-level>",
      "Log level (trace, debug, info, notice, warning, error); overrides the config."
    ),
    ("--user", "<user>", "When started as root: serve this user's session (run as it, on its bus)."),
  ]

  /// The usage line.
  public static let usage =
    "responderd [--config <config>] [--check-config [<check-config>]] [--log-level <log-level>] [--user <user>] [--allow-root]"

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
      --check-config [<check-config>]
                              Check a config file (default: the one the service
                              would load), print what is wrong, and exit.
      --log-level <log-level> Log level (trace, debug, info, notice, warning,
                              error); overrides the config.
      --user <user>           When started as root: serve this user's session (run
                              as it, on its bus).
      --allow-root            Stay root when started as root (test harnesses in
                              containers only; never in a session).
      --version               Show the version.
      -h, --help              Show help information.

    \(ExitCodes.helpText)

    """

  /// Parses the arguments (without the program name).
  public static func parse(_ arguments: [String]) throws(UsageError) -> Action {
    let options = arguments.prefix { $0 != "--" }
    if options.contains("-h") || options.contains("--help") { return .help }
    if options.contains("--version") { return .version }
    if let index = options.firstIndex(where: { $0.hasPrefix("--generate-completion-script") }) {
      let argument = options[index]
      let shell: String
      if argument.hasPrefix("--generate-completion-script=") {
        shell = String(argument.dropFirst("--generate-completion-script=".count))
      } else if argument == "--generate-completion-script", index + 1 < options.endIndex {
        shell = options[index + 1]
      } else {
        throw UsageError(message: "Missing value for '--generate-completion-script <shell>'")
      }
      guard let script = completionScripts[shell] else {
        throw UsageError(
          message:
            "The value '\(shell)' is invalid for '--generate-completion-script <shell>' (bash, zsh, fish)")
      }
      return .completionScript(script)
    }

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
      if name == "--check-config" {
        result.checkConfigRequested = true
        if let attached {
          result.checkConfig = attached
        } else if index < arguments.count, !arguments[index].hasPrefix("-") {
          result.checkConfig = arguments[index]
          index += 1
        }
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

  /// Shell completion scripts, by shell.
  static let completionScripts: [String: String] = [
    "bash": """
    # bash completion for responderd
    _responderd() {
        local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
        case "$prev" in
            --config|--check-config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            --log-level) COMPREPLY=($(compgen -W "trace debug info notice warning error critical" -- "$cur")); return ;;
            --user) COMPREPLY=($(compgen -u -- "$cur")); return ;;
        esac
        COMPREPLY=($(compgen -W "--config --check-config --log-level --user --allow-root --version -h --help" -- "$cur"))
    }
    complete -o filenames -F _responderd responderd

    """,
    "zsh": """
    #compdef responderd
    _arguments -s \\
      '--config[Read the config from this file instead of the default places.]:config:_files' \\
      '--check-config[Check a config file, print what is wrong, and exit.]:check-config:_files' \\
      '--log-level[Log level; overrides the config.]:log-level:(trace debug info notice warning error critical)' \\
      '--user[When started as root: serve the session of this user.]:user:_users' \\
      '--allow-root[Stay root when started as root (test harnesses in containers only).]' \\
      '--version[Show the version.]' \\
      '(-h --help)'{-h,--help}'[Show help information.]'

    """,
    "fish": """
    # fish completion for responderd
    complete -c responderd -f
    complete -c responderd -l config -r -F -d 'Read the config from this file instead of the default places.'
    complete -c responderd -l check-config -r -F -d 'Check a config file, print what is wrong, and exit.'
    complete -c responderd -l log-level -x -a 'trace debug info notice warning error critical' -d 'Log level; overrides the config.'
    complete -c responderd -l user -x -a '(__fish_complete_users)' -d 'When started as root: serve the session of this user.'
    complete -c responderd -l allow-root -d 'Stay root when started as root (test harnesses in containers only).'
    complete -c responderd -l version -d 'Show the version.'
    complete -c responderd -s h -l help -d 'Show help information.'

    """,
  ]
}
