/// The help and usage texts of responderctl's commands, laid out as ArgumentParser laid them out:
/// OVERVIEW, the discussion, USAGE, ARGUMENTS, OPTIONS and SUBCOMMANDS, wrapped at 80 columns.
extension Command {
  /// The usage line: `responderctl keys replay <file> [--config <config>]`.
  static func usage(_ path: [Command]) -> String {
    let command = path[path.count - 1]
    let words = path.map(\.name).joined(separator: " ")
    if !command.subcommands.isEmpty { return words + " <subcommand>" }
    return ([words] + command.arguments.map(\.usage)).joined(separator: " ")
  }

  /// `responderctl motion record --help`.
  static func help(_ path: [Command]) -> String {
    let command = path[path.count - 1]
    var text = ""
    if !command.abstract.isEmpty { text += wrapped("OVERVIEW: " + command.abstract) + "\n\n" }
    if !command.discussion.isEmpty { text += wrapped(command.discussion) + "\n\n" }
    text += "USAGE: " + usage(path) + "\n\n"
    let positionals = command.arguments.filter { $0.kind == .positional || $0.kind == .remainder }
    if !positionals.isEmpty {
      text += "ARGUMENTS:\n" + positionals.map { entry($0.label, $0.helpText) }.joined() + "\n"
    }
    var options = command.arguments.filter { $0.kind == .flag || $0.kind == .option }.map {
      ($0.label, $0.helpText)
    }
    if path.count == 1 { options.append(("--version", "Show the version.")) }
    options.append(("-h, --help", "Show help information."))
    text += "OPTIONS:\n" + options.map { entry($0.0, $0.1) }.joined() + "\n"
    if !command.subcommands.isEmpty {
      text += "SUBCOMMANDS:\n" + command.subcommands.map { entry($0.name, $0.abstract) }.joined()
      let group = path.dropFirst().map { $0.name + " " }.joined()
      text += "\n  See '\(path[0].name) help \(group)<subcommand>' for detailed help.\n"
    }
    return text
  }

  /// What an error prints: the message, the usage, where to read more.
  static func errorText(_ error: UsageError) -> String {
    if error.isOwnMessage { return "\(error.path[0].name): \(error.message)\n" }
    return "Error: \(error.message)\nUsage: \(usage(error.path))\n"
      + "  See '\(error.path.map(\.name).joined(separator: " ")) --help' for more information.\n"
  }

  /// An entry of a list: the label in a column of 24 (on a line of its own when longer), the text
  /// beside it.
  private static func entry(_ label: String, _ text: String) -> String {
    let column = 26
    let first = "  " + label
    let lines = wrappedLines(text, width: 80 - column)
    let indent = String(repeating: " ", count: column)
    guard first.count < column - 1 else {
      return first + "\n" + lines.map { indent + $0 + "\n" }.joined()
    }
    return first + String(repeating: " ", count: column - first.count) + (lines.first ?? "") + "\n"
      + lines.dropFirst().map { indent + $0 + "\n" }.joined()
  }

  /// `text` wrapped at 80 columns, its line breaks kept, a line that fits as it is (the exit codes'
  /// table), and each longer line's indentation carried on.
  private static func wrapped(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      if line.count <= 80 { return String(line) }
      let indent = String(line.prefix { $0 == " " })
      return wrappedLines(String(line.dropFirst(indent.count)), width: 80 - indent.count)
        .map { indent + $0 }.joined(separator: "\n")
    }.joined(separator: "\n")
  }

  /// The words of `text` in lines of at most `width` characters (a longer word on a line of its own).
  static func wrappedLines(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty && line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    return lines
  }
}

extension CommandArgument {
  /// The help with its default and choices: "g or m/s2. (values: g, m/s2; default: g)".
  var helpText: String {
    var notes: [String] = []
    if case .choices(let choices) = completion, kind == .option {
      notes.append("values: " + choices.joined(separator: ", "))
    }
    if let defaultValue { notes.append("default: " + defaultValue) }
    return notes.isEmpty ? help : help + " (" + notes.joined(separator: "; ") + ")"
  }
}
