/// The exit codes of `responderd` and `responderctl` (sysexits.h's where one fits): one table,
/// printed by both programs' `--help` and copied into their man pages and the README (a test
/// compares them).
public enum ExitCodes: Int32, CaseIterable, Sendable {
  case success = 0
  case failure = 1
  case usage = 64
  case dataError = 65
  case noInput = 66
  case unavailable = 69
  case cannotCreate = 73
  case noPermission = 77
  case config = 78

  /// What the code means, in a line.
  public var meaning: String {
    switch self {
    case .success: "success"
    case .failure:
      "it did not happen: `send`'s event was handled by no responder, a call the daemon refused, "
        + "`interfaces --check` found differences; responderd: another responderd owns its name"
    case .usage: "a mistyped command, option or value (the message names it, with a \"did you mean\")"
    case .dataError: "an input file (recording, trace, scene, strokes) that cannot be understood"
    case .noInput: "an input file that cannot be read (missing, unreadable, not a regular file)"
    case .unavailable: "responderd is not running on the session bus"
    case .cannotCreate: "an output file that cannot be written"
    case .noPermission: "responderd started as root without --user or --allow-root"
    case .config: "a config file that is refused (its file, line and key say why)"
    }
  }

  /// The table as `--help` prints it: `  CODE  meaning`, wrapped at 78 columns (ArgumentParser
  /// rewraps longer lines).
  public static var helpText: String {
    var lines = ["EXIT STATUS:"]
    for status in allCases {
      let code = String(status.rawValue)
      var line = "  " + code + String(repeating: " ", count: 4 - code.count)
      for word in status.meaning.split(separator: " ") {
        if line.count + word.count + 1 > 78 {
          lines.append(line)
          line = String(repeating: " ", count: 6)
        } else if !line.hasSuffix(" ") {
          line += " "
        }
        line += word
      }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }
}
