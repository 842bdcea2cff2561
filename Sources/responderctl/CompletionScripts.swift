/// Shell completion scripts for responderctl (`--generate-completion-script bash|zsh|fish`; the
/// package installs them), made from the command tree: subcommands, each command's options, and
/// what their values are (files, directories, commands, a list of words).
extension Command {
  func completionScript(shell: String) -> String? {
    switch shell {
    case "bash": bashCompletion()
    case "zsh": zshCompletion()
    case "fish": fishCompletion()
    default: nil
    }
  }

  /// Every command with the words that lead to it from the root (aliases included), root first.
  private func commandPaths() -> [(words: [String], command: Command)] {
    var result: [(words: [String], command: Command)] = [([], self)]
    func visit(_ command: Command, _ words: [String]) {
      for sub in command.subcommands {
        for name in sub.names {
          result.append((words + [name], sub))
          visit(sub, words + [name])
        }
      }
    }
    visit(self, [])
    return result
  }

  /// Every option name and subcommand name of a command (and the help).
  private func completionWords(root: Bool) -> [String] {
    subcommands.map(\.name) + (root && !subcommands.isEmpty ? ["help"] : [])
      + arguments.flatMap(\.names) + (root ? ["--version"] : []) + ["-h", "--help"]
  }

  /// Every command path, and the `case` pattern of the bash and zsh scripts that matches the words
  /// of any but the root's (`" players"|" players list"`).
  private func casePaths() -> (paths: [(words: [String], command: Command)], known: String) {
    let paths = commandPaths()
    return (paths, paths.dropFirst().map { "\" \($0.words.joined(separator: " "))\"" }.joined(separator: "|"))
  }

  private func bashCompletion() -> String {
    let name = self.name
    let (paths, known) = casePaths()
    var cases = ""
    for (words, command) in paths {
      cases += "        \"\(words.map { " " + $0 }.joined())\")\n"
      let valued = command.arguments.filter { $0.kind == .option }
      if !valued.isEmpty {
        cases += "            case \"$prev\" in\n"
        for option in valued {
          cases +=
            "                \(option.names.joined(separator: "|"))) \(bashValues(option.completion)); return ;;\n"
        }
        cases += "            esac\n"
      }
      cases +=
        "            words=\"\(command.completionWords(root: words.isEmpty).joined(separator: " "))\"\n"
      if let positional = command.arguments.first(where: { $0.kind == .positional }) {
        cases += "            more='\(bashValues(positional.completion))'\n"
      }
      cases += "            ;;\n"
    }
    return """
      # bash completion for \(name)
      _\(name)() {
          local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" words="" more="" i
          for ((i = 1; i < COMP_CWORD; i++)); do
              [ "${COMP_WORDS[i]}" = -- ] && { COMPREPLY=($(compgen -c -- "$cur")); return; }
              case "$command ${COMP_WORDS[i]}" in
                  \(known)) command="$command ${COMP_WORDS[i]}" ;;
              esac
          done
          case "$command" in
      \(cases)    esac
          COMPREPLY=($(compgen -W "$words" -- "$cur"))
          if [ -n "$more" ] && [[ "$cur" != -* ]]; then eval "$more"; fi
      }
      complete -o filenames -F _\(name) \(name)

      """
  }

  private func bashValues(_ completion: ValueCompletion) -> String {
    switch completion {
    case .none: "COMPREPLY=()"
    case .file: "COMPREPLY+=($(compgen -f -- \"$cur\"))"
    case .directory: "COMPREPLY+=($(compgen -d -- \"$cur\"))"
    case .command: "COMPREPLY+=($(compgen -c -- \"$cur\"))"
    case .choices(let words): "COMPREPLY+=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))"
    }
  }

  private func zshCompletion() -> String {
    let name = self.name
    let (paths, known) = casePaths()
    var cases = ""
    for (words, command) in paths {
      var specs: [String] = []
      for argument in command.arguments {
        let help = zshQuoted(argument.help)
        let action = zshAction(argument.completion)
        switch argument.kind {
        case .flag, .option:
          let value = argument.kind == .option ? ":\(argument.key):\(action)" : ""
          let exclusive = argument.names.count > 1 ? "(\(argument.names.joined(separator: " ")))" : ""
          for spelling in argument.names { specs.append("'\(exclusive)\(spelling)[\(help)]\(value)'") }
        case .positional: specs.append("':\(argument.key):\(action)'")
        case .remainder: specs.append("'*::\(argument.key):_normal'")
        }
      }
      if words.isEmpty { specs.append("'--version[Show the version.]'") }
      specs.append("'(-h --help)'{-h,--help}'[Show help information.]'")
      if !command.subcommands.isEmpty {
        let names = command.subcommands.map(\.name) + (words.isEmpty ? ["help"] : [])
        specs.append("':subcommand:(\(names.joined(separator: " ")))'")
      }
      cases +=
        "    (\"\(words.map { " " + $0 }.joined())\")\n        _arguments -s \\\n          "
        + specs.joined(separator: " \\\n          ") + " ;;\n"
    }
    return """
      #compdef \(name)
      _\(name)() {
        local command="" i=2
        while (( i < CURRENT )); do
          case "$command ${words[i]}" in
            (\(known)) command="$command ${words[i]}" ;;
            (*) break ;;
          esac
          (( i++ ))
        done
        words=("${words[1]}" "${(@)words[i,-1]}")
        (( CURRENT -= i - 2 ))
        case "$command" in
      \(cases)  esac
      }
      _\(name) "$@"

      """
  }

  private func zshAction(_ completion: ValueCompletion) -> String {
    switch completion {
    case .none: " "
    case .file: "_files"
    case .directory: "_files -/"
    case .command: "_command_names"
    case .choices(let words): "(\(words.joined(separator: " ")))"
    }
  }

  /// Text inside a zsh option's `[…]`, in single quotes.
  private func zshQuoted(_ text: String) -> String {
    escaping(text) { character in
      switch character {
      case "'": "'\\''"
      case "[", "]", ":", "\\": "\\" + String(character)
      default: nil
      }
    }
  }

  /// `text` with each character that `escape` maps replaced by what it maps it to.
  private func escaping(_ text: String, _ escape: (Character) -> String?) -> String {
    var result = ""
    for character in text {
      if let escaped = escape(character) { result += escaped } else { result.append(character) }
    }
    return result
  }

  private func fishCompletion() -> String {
    let name = self.name
    let paths = commandPaths()
    let known = paths.dropFirst().map { "' \($0.words.joined(separator: " "))'" }.joined(separator: " ")
    var lines: [String] = []
    for (words, command) in paths {
      let at = "-n '__\(name)_at \(words.joined(separator: " "))'"
      for sub in command.subcommands {
        lines.append("complete -c \(name) \(at) -a \(sub.name) -d \(fishQuoted(sub.abstract))")
      }
      if words.isEmpty && !command.subcommands.isEmpty {
        lines.append("complete -c \(name) \(at) -a help -d 'Show the help of a command.'")
        lines.append("complete -c \(name) \(at) -l version -d 'Show the version.'")
      }
      for argument in command.arguments {
        let values = fishValues(argument.completion)
        switch argument.kind {
        case .flag, .option:
          let spellings = argument.names.map {
            $0.hasPrefix("--") ? "-l \($0.dropFirst(2))" : "-s \($0.dropFirst())"
          }
          lines.append(
            "complete -c \(name) \(at) \(spellings.joined(separator: " "))"
              + (argument.kind == .option ? " -r \(values)" : "") + " -d \(fishQuoted(argument.help))")
        case .positional, .remainder:
          lines.append("complete -c \(name) \(at) \(values)")
        }
      }
      lines.append("complete -c \(name) \(at) -s h -l help -d 'Show help information.'")
    }
    return """
      # fish completion for \(name)
      function __\(name)_at --description 'Whether the command line is at this \(name) command'
          set -l path ''
          for word in (commandline -opc)[2..-1]
              switch "$path $word"
                  case \(known)
                      set path "$path $word"
              end
          end
          set -l wanted ''
          for word in $argv
              set wanted "$wanted $word"
          end
          test "$path" = "$wanted"
      end
      complete -c \(name) -f
      \(lines.joined(separator: "\n"))

      """
  }

  private func fishValues(_ completion: ValueCompletion) -> String {
    switch completion {
    case .none: "-x"
    case .file: "-F"
    case .directory: "-x -a '(__fish_complete_directories)'"
    case .command: "-x -a '(__fish_complete_subcommand)'"
    case .choices(let words): "-x -a '\(words.joined(separator: " "))'"
    }
  }

  private func fishQuoted(_ text: String) -> String {
    "'" + escaping(text) { $0 == "'" || $0 == "\\" ? "\\" + String($0) : nil } + "'"
  }
}
