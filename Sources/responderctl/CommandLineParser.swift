import ResponderConfig

/// responderctl's command line, parsed by hand: swift-argument-parser brought Foundation (about
/// 5 MB of the binary) for what these few commands need.
///
/// The rules, as they were with ArgumentParser: `--name value` or `--name=value` (the last of a
/// repeated option wins), options and arguments in any order, everything after `--` for a command
/// that takes a command line of its own; `-h`/`--help` anywhere or `help COMMAND…` prints the
/// command's help on stdout (exit 0), as does a command group given no subcommand; `--version`;
/// the hidden `--generate-completion-script bash|zsh|fish`. A mistake is a usage error (exit 64):
/// an unknown subcommand or option names it, with a "did you mean" when one is close.

/// Ends responderctl with this status (the message, if any, was printed already).
struct ExitCode: Error {
  var status: Int32
  init(_ status: Int32) { self.status = status }
}

/// A value a command refused (`validate`): a usage error with this message.
struct ValidationError: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

/// How a shell completes a value.
enum ValueCompletion: Equatable, Sendable {
  case none
  case file
  case directory
  case command
  case choices([String])
}

/// One flag, option or positional argument of a command.
struct CommandArgument: Sendable {
  enum Kind: Equatable, Sendable {
    /// `--name`: present or not.
    case flag
    /// `--name VALUE`.
    case option
    /// A word in its place.
    case positional
    /// Every word after `--`.
    case remainder
  }

  var kind: Kind
  /// The spellings (`-o`, `--output`), short first; none for a positional argument.
  var names: [String]
  /// What the parsed values are looked up by, and the `<value>` of the help.
  var key: String
  var help: String
  var completion: ValueCompletion = .none
  /// Shown in the help as "(default: …)".
  var defaultValue: String?
  /// An option that must be given (a positional argument always must).
  var isRequired = false

  static func flag(_ names: String..., help: String) -> CommandArgument {
    CommandArgument(kind: .flag, names: names, key: key(of: names), help: help)
  }

  /// `--json`, as every command that prints a report takes it.
  static let json = flag("--json", help: "One JSON object instead of text.")

  static func option(
    _ names: String..., help: String, completion: ValueCompletion = .none, defaultValue: String? = nil,
    isRequired: Bool = false
  ) -> CommandArgument {
    CommandArgument(
      kind: .option, names: names, key: key(of: names), help: help, completion: completion,
      defaultValue: defaultValue, isRequired: isRequired)
  }

  static func positional(_ key: String, help: String, completion: ValueCompletion = .none) -> CommandArgument
  {
    CommandArgument(kind: .positional, names: [], key: key, help: help, completion: completion)
  }

  static func remainder(_ key: String, help: String) -> CommandArgument {
    CommandArgument(kind: .remainder, names: [], key: key, help: help, completion: .command)
  }

  /// The first long name without its dashes.
  private static func key(of names: [String]) -> String {
    String((names.first { $0.hasPrefix("--") } ?? names[0]).drop { $0 == "-" })
  }

  /// `--config <config>`, `-o, --output <output>`, `--json`, `<file>`.
  var label: String {
    switch kind {
    case .flag: names.joined(separator: ", ")
    case .option: names.joined(separator: ", ") + " <\(key)>"
    case .positional, .remainder: "<\(key)>"
    }
  }

  /// Its first long name (`--output` of `-o, --output`).
  var longName: String { names.first { $0.hasPrefix("--") } ?? names[0] }

  /// How the usage line shows it.
  var usage: String {
    switch kind {
    case .flag: "[\(longName)]"
    case .option:
      isRequired && defaultValue == nil ? "\(longName) <\(key)>" : "[\(longName) <\(key)>]"
    case .positional: "<\(key)>"
    case .remainder: "[-- <\(key)> ...]"
    }
  }
}

/// A command or a group of commands: `responderctl motion record`, `responderctl motion`.
struct Command: Sendable {
  var name: String
  var aliases: [String] = []
  var abstract: String
  var discussion = ""
  var arguments: [CommandArgument] = []
  var subcommands: [Command] = []
  /// Runs the command with what the command line gave; nil for a group (its help is printed).
  var run: (@Sendable (ParsedArguments) throws -> Void)?

  /// Every name it answers to.
  var names: [String] { [name] + aliases }
}

/// What the command line gave a command: its flags, option values, positional words and the
/// words after `--`.
struct ParsedArguments: Sendable {
  /// The command, from the root (`responderctl`, `motion`, `record`).
  var path: [Command]
  var flags: Set<String> = []
  var values: [String: String] = [:]
  var remainder: [String] = []

  var command: Command { path[path.count - 1] }

  func flag(_ key: String) -> Bool { flags.contains(key) }

  func string(_ key: String) -> String? { values[key] }

  func double(_ key: String) throws(UsageError) -> Double? {
    try converted(key) { Double($0).flatMap { $0.isFinite ? $0 : nil } }
  }

  func int(_ key: String) throws(UsageError) -> Int? {
    try converted(key) { Int($0) }
  }

  /// One of the values a `.choices` option takes.
  func choice(_ key: String) throws(UsageError) -> String? {
    try converted(key) { value in
      guard let argument = command.arguments.first(where: { $0.key == key }),
        case .choices(let choices) = argument.completion
      else { return value }
      return choices.contains(value) ? value : nil
    }
  }

  private func converted<T>(_ key: String, _ convert: (String) -> T?) throws(UsageError) -> T? {
    guard let text = values[key] else { return nil }
    guard let value = convert(text) else {
      let argument = command.arguments.first { $0.key == key }
      var message = "The value '\(text)' is invalid for '\(argument?.usageLabel ?? key)'"
      if let argument, case .choices(let choices) = argument.completion {
        message += "; one of: " + choices.joined(separator: ", ")
      }
      throw UsageError(message: message, path: path)
    }
    return value
  }
}

extension CommandArgument {
  /// `--count <count>` (the longest spelling), `<file>`: how a message names it.
  var usageLabel: String {
    switch kind {
    case .flag: longName
    case .option: "\(longName) <\(key)>"
    case .positional, .remainder: "<\(key)>"
    }
  }
}

/// A mistake on the command line: printed with the command's usage, exit 64.
struct UsageError: Error {
  var message: String
  /// The command it concerns (its usage is printed).
  var path: [Command]
  /// "responderctl: …" alone, without the usage (an unknown subcommand names the ones there are).
  var isOwnMessage = false
}

/// What a command line asks for.
enum Invocation {
  case run(ParsedArguments)
  case help([Command])
  case version
  case completionScript(String)
}

extension Command {
  /// Parses `arguments` (without the program's name) against this root command.
  func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
    var path = [self]
    var parsed = ParsedArguments(path: path)
    var helpRequested = false
    var versionRequested = false
    var helpWords: [String]?
    var firstError: UsageError?
    var index = 0
    func fail(_ message: String) {
      if firstError == nil { firstError = UsageError(message: message, path: path) }
    }
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      var command: Command { path[path.count - 1] }
      if argument == "--" {
        if command.arguments.contains(where: { $0.kind == .remainder }) {
          parsed.remainder = Array(arguments[index...])
        } else if index < arguments.count {
          fail("Unexpected argument '\(arguments[index])'")
        }
        break
      }
      if argument == "-h" || argument == "--help" {
        helpRequested = true
        continue
      }
      if argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil {
        var name = argument
        var attached: String?
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
          name = String(argument[..<equals])
          attached = String(argument[argument.index(after: equals)...])
        }
        if path.count == 1 && name == "--version" {
          versionRequested = true
          continue
        }
        if path.count == 1 && name == "--generate-completion-script" {
          guard let shell = attached ?? (index < arguments.count ? arguments[index] : nil) else {
            throw UsageError(message: "Missing value for '--generate-completion-script <shell>'", path: path)
          }
          guard let script = completionScript(shell: shell) else {
            throw UsageError(
              message:
                "The value '\(shell)' is invalid for '--generate-completion-script <shell>' (bash, zsh, fish)",
              path: path)
          }
          return .completionScript(script)
        }
        guard let option = command.arguments.first(where: { $0.names.contains(name) }) else {
          let names = command.arguments.flatMap(\.names) + ["--help"] + (path.count == 1 ? ["--version"] : [])
          fail(
            "Unknown option '\(name)'"
              + (suggestion(for: name, among: names).map { ". Did you mean '\($0)'?" } ?? ""))
          continue
        }
        if option.kind == .flag {
          if let attached {
            fail("The option '\(name)' does not take any value, but '\(attached)' was specified.")
          }
          parsed.flags.insert(option.key)
          continue
        }
        if let attached {
          parsed.values[option.key] = attached
        } else if index < arguments.count,
          !arguments[index].hasPrefix("-") || arguments[index] == "-" || Double(arguments[index]) != nil
        {
          parsed.values[option.key] = arguments[index]
          index += 1
        } else {
          fail("Missing value for '\(option.usageLabel)'")
        }
        continue
      }
      // A word: the help's subject, a subcommand, or a positional argument.
      if helpWords != nil {
        helpWords!.append(argument)
        continue
      }
      if !command.subcommands.isEmpty {
        if path.count == 1 && argument == "help" {
          helpWords = []
          continue
        }
        guard let next = command.subcommands.first(where: { $0.names.contains(argument) }) else {
          throw unknownSubcommand(argument, path: path)
        }
        path.append(next)
        parsed = ParsedArguments(path: path)
        continue
      }
      guard
        let positional = command.arguments.first(where: {
          $0.kind == .positional && parsed.values[$0.key] == nil
        })
      else {
        fail("Unexpected argument '\(argument)'")
        continue
      }
      parsed.values[positional.key] = argument
    }
    if let helpWords {
      var helpPath = [self]
      for word in helpWords {
        guard let next = helpPath.last!.subcommands.first(where: { $0.names.contains(word) }) else {
          throw unknownSubcommand(word, path: helpPath)
        }
        helpPath.append(next)
      }
      return .help(helpPath)
    }
    if helpRequested { return .help(path) }
    if versionRequested && firstError == nil { return .version }
    if let firstError { throw firstError }
    let command = path[path.count - 1]
    guard command.run != nil else { return .help(path) }
    for argument in command.arguments
    where (argument.kind == .positional || argument.isRequired) && parsed.values[argument.key] == nil {
      throw UsageError(message: "Missing expected argument '\(argument.usageLabel)'", path: path)
    }
    return .run(parsed)
  }

  /// "unknown command 'send remoteControll' (did you mean 'remoteControl'?); one of: …".
  private func unknownSubcommand(_ word: String, path: [Command]) -> UsageError {
    let group = path[path.count - 1]
    let names = group.subcommands.flatMap(\.names)
    let hint = suggestion(for: word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
    let typed = (path.dropFirst().map(\.name) + [word]).joined(separator: " ")
    let message =
      "unknown command '\(typed)'\(hint); one of: \(group.subcommands.map(\.name).joined(separator: ", "))"
      + " (see '\(path.map(\.name).joined(separator: " ")) --help')"
    return UsageError(message: message, path: path, isOwnMessage: true)
  }
}
