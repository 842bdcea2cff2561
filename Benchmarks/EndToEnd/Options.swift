import EventTime

#if canImport(Glibc)
  import Glibc
#endif

/// The command line: `EndToEnd [--presses N] [--idle-seconds N] [--starts N] [--motion-seconds N]
/// [--touch-sequences N] [--load-seconds N] [--load-tabs N] [--load-rate N] [--load-presses N]
/// [--baseline-responderd PATH] [--package DEB]
/// [--only key,idle,startup,motion,flap,touch,load,volume,size] [--raw FILE]`.
struct Options {
  /// Presses per setup in the key → player measurement (at least 200 for the table).
  var presses = 200
  /// Presses per setup before measuring (not counted).
  var warmUp = 10
  /// Seconds between presses (from one press to the next).
  var spacing = 0.3
  var idleSeconds = 60.0
  var starts = 15
  var motionSeconds = 10.0
  var touchSequences = 200
  /// The load part: seconds of CPU measured, chatty tabs and their PropertiesChanged rate, presses.
  var loadSeconds = 20.0
  var loadTabs = 20
  var loadRate = 10.0
  var loadPresses = 200
  /// Another responderd build measured in the load part too, first (before/after a change).
  var baselineResponderd: String?
  /// The Debian package weighed in the size part (scripts/bench builds it), if any.
  var packagePath: String?
  var phases: Set<String> = ["key", "idle", "startup", "motion", "flap", "touch", "load", "volume", "size"]
  /// Where to write every key → player latency (CSV: setup, round, seconds), if anywhere.
  var rawPath: String?

  static let usage = """
    usage: EndToEnd [--presses N] [--idle-seconds N] [--starts N] [--motion-seconds N]
                    [--touch-sequences N] [--load-seconds N] [--load-tabs N] [--load-rate N]
                    [--load-presses N] [--baseline-responderd PATH] [--package DEB]
                    [--only key,idle,startup,motion,flap,touch,load,volume,size] [--raw FILE]
    Runs the end-to-end benchmarks of responderd against the peer setup (triggerhappy + playerctl,
    playerctld) in one run and prints a markdown table. Runs itself under umockdev-wrapper.
    """

  init(arguments: [String]) throws {
    var index = 0
    func value() throws -> String {
      index += 1
      guard index < arguments.count else { throw OptionError("\(arguments[index - 1]) needs a value") }
      return arguments[index]
    }
    func number(_ range: ClosedRange<Double>) throws -> Double {
      let name = arguments[index]
      let text = try value()
      guard let number = Double(text), range.contains(number) else {
        throw OptionError("\(name): '\(text)' is not a number in \(range.lowerBound)...\(range.upperBound)")
      }
      return number
    }
    while index < arguments.count {
      switch arguments[index] {
      case "--presses": presses = Int(try number(1...100_000))
      case "--warm-up": warmUp = Int(try number(1...1000))
      case "--idle-seconds": idleSeconds = try number(1...3600)
      case "--starts": starts = Int(try number(1...1000))
      case "--motion-seconds": motionSeconds = try number(1...3600)
      case "--touch-sequences": touchSequences = Int(try number(1...100_000))
      case "--load-seconds": loadSeconds = try number(1...3600)
      case "--load-tabs": loadTabs = Int(try number(1...200))
      case "--load-rate": loadRate = try number(0.1...1000)
      case "--load-presses": loadPresses = Int(try number(1...100_000))
      case "--baseline-responderd": baselineResponderd = try value()
      case "--raw": rawPath = try value()
      case "--package": packagePath = try value()
      case "--only":
        let names = try value().split(separator: ",").map(String.init)
        let known: Set<String> = [
          "key", "idle", "startup", "motion", "flap", "touch", "load", "volume", "size",
        ]
        for name in names where !known.contains(name) {
          throw OptionError(
            "--only: unknown part '\(name)' (key, idle, startup, motion, flap, touch, load, volume, size)")
        }
        phases = Set(names)
      case "-h", "--help": throw OptionError(nil)
      default: throw OptionError("unknown argument '\(arguments[index])'")
      }
      index += 1
    }
  }
}

/// A command-line mistake (nil message: help was asked for).
struct OptionError: Error {
  let message: String?
  init(_ message: String?) { self.message = message }
}
