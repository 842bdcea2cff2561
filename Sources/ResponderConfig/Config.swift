import PlayerSelection
import ResponderCore
import SystemCalls

/// responderd's configuration: the chain of handlers and the settings of each part.
///
/// The defaults here are the ones `config/config.toml` spells out (a test keeps them equal).
public struct ResponderdConfig {
  /// The file it was read from ("built-in defaults" when none).
  public var file = "built-in defaults"
  /// The handlers after the first responder, in order (`chain = ["mpris", "command", "log"]`).
  public var chain: [String] = ["mpris", "command", "log"]
  /// The handlers the chain may name.
  public static let knownHandlers = ["mpris", "command", "log"]
  /// Settings of the responder applications registered over D-Bus.
  public var responders = ResponderSettings()
  /// The `command` handler.
  public var command = CommandSettings()
  /// The `log` handler.
  public var log = LogHandlerSettings()
  /// MPRIS player selection and the `mpris` handler.
  public var players = PlayerSettings()
  /// The daemon's own logging.
  public var logging = LoggingSettings()
  /// Headset and media keys from evdev.
  public var keys = KeysConfig()
  /// The accelerometer and the shake detector.
  public var motion = MotionSettings()
  /// Whole-screen touch gestures.
  public var touch = TouchGesturesConfig()
  /// The line of `[touch] width` (of the table when absent; 0 without one), for warnings.
  public var touchLine = 0
  /// Volume keys of owned devices, sent to the sound server.
  public var volume = VolumeSettings()

  public init() {}

  /// The largest config file read (1 MiB; the spelled-out default is about 10 KiB).
  public static let maximumFileSize = 1 << 20

  /// Reads a config file. Only a regular file (or a symlink to one) of at most `maximumFileSize`
  /// bytes is read, and never with a blocking call: a FIFO, a device (`/dev/zero`) or a huge file
  /// is refused with the reason, at once (`readRegularFile`).
  public static func load(path: String) throws -> ResponderdConfig {
    let bytes: [UInt8]
    do {
      bytes = try readRegularFile(path, maximumSize: maximumFileSize)
    } catch let refusal as FileRefusal {
      throw ConfigError(file: path, line: 0, key: "", message: "not read: \(refusal.reason)")
    } catch {
      throw ConfigError(file: path, line: 0, key: "", message: "cannot read the file: \(error)")
    }
    if let offset = firstInvalidUTF8(bytes) {
      let lineStart = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
      let line = bytes[..<offset].count(where: { $0 == 0x0A }) + 1
      let byte = String(bytes[offset], radix: 16, uppercase: true)
      throw ConfigError(
        file: path, line: line, key: "",
        message:
          "column \(offset - lineStart + 1): the file is not UTF-8 text (byte 0x\(byte) here); save it as UTF-8"
      )
    }
    return try parse(String(decoding: bytes, as: UTF8.self), file: path)
  }

  /// The offset of the first byte of `bytes` that is not part of valid UTF-8, if any.
  static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded): offset += encoded.count
      case .emptyInput: return nil
      case .error: return offset
      }
    }
  }

  /// Parses the text of a config file; `file` names it in errors.
  public static func parse(_ text: String, file: String) throws -> ResponderdConfig {
    let root = try ConfigSection.root(text: text, file: file)
    var config = ResponderdConfig()
    config.file = file
    config.chain = try root.strings("chain", default: config.chain)
    for (index, name) in config.chain.enumerated() {
      guard knownHandlers.contains(name) else {
        let hint = suggestion(for: name, among: knownHandlers).map { " (did you mean '\($0)'?)" } ?? ""
        throw root.error(
          "chain",
          "unknown handler '\(shown(name))' at chain[\(index)]\(hint); known: \(knownHandlers.joined(separator: ", "))"
        )
      }
    }
    if Set(config.chain).count != config.chain.count {
      throw root.error("chain", "a handler appears twice in 'chain'")
    }
    config.responders = try ResponderSettings(try root.section("responders"))
    config.command = try CommandSettings(try root.section("command"))
    config.log = try LogHandlerSettings(try root.section("log"))
    config.players = try PlayerSettings(try root.section("players"))
    config.logging = try LoggingSettings(try root.section("logging"))
    config.keys = try KeysConfig(try root.section("keys"))
    config.motion = try MotionSettings(try root.section("motion"))
    let touch = try root.section("touch")
    config.touch = try TouchGesturesConfig(touch)
    config.touchLine = touch.line(of: "width")
    config.volume = try VolumeSettings(try root.section("volume"))
    try root.finish()
    return config
  }

  /// The config file to use: `$XDG_CONFIG_HOME/responderd/config.toml` (default `~/.config`),
  /// else the system default `/etc/xdg/responderd/config.toml` (or another `$XDG_CONFIG_DIRS`
  /// entry); nil when there is none (the built-in defaults apply).
  public static func defaultPath() -> String? {
    searchedPaths().first(where: fileExists)
  }

  /// The places `defaultPath()` looks at, in order.
  public static func searchedPaths() -> [String] {
    var candidates: [String] = []
    if let home = environment("XDG_CONFIG_HOME"), !home.isEmpty {
      candidates.append("\(home)/responderd/config.toml")
    } else if let home = environment("HOME"), !home.isEmpty {
      candidates.append("\(home)/.config/responderd/config.toml")
    }
    let dirs = environment("XDG_CONFIG_DIRS").flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/xdg"
    for dir in dirs.split(separator: ":") { candidates.append("\(dir)/responderd/config.toml") }
    return candidates
  }
}

/// `[responders]`: applications registered over D-Bus.
public struct ResponderSettings: Equatable {
  /// How long a call into an application may take before the event moves on (seconds).
  public var deadline: Double = 0.1
  /// How long one event may spend with the applications in all (seconds), whatever their number:
  /// the applications left when it is spent are passed over for that event. At least `deadline`
  /// applies (a longer `deadline` is never cut short by the default).
  public var eventDeadline: Double = 0.5
  public init() {}
  init(_ section: ConfigSection) throws {
    deadline = try section.double("deadline", default: deadline, range: 0.001...10)
    eventDeadline = try section.double("event-deadline", default: eventDeadline, range: 0.001...60)
    try section.finish()
  }
}

/// `[log]`: the `log` handler, which logs every event that reaches it and handles it.
public struct LogHandlerSettings: Equatable {
  /// Whether it marks events handled (true) or lets them go on to be dropped (false).
  public var handles = false
  public init() {}
  init(_ section: ConfigSection) throws {
    handles = try section.bool("handles", default: handles)
    try section.finish()
  }
}

/// `[logging]`: the daemon's log level.
public struct LoggingSettings: Equatable {
  public var level = "info"
  public static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
  public init() {}
  init(_ section: ConfigSection) throws {
    level = try section.string("level", default: level, allowed: Self.levels)
    try section.finish()
  }
}
