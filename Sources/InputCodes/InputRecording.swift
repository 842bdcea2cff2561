import EventTime

/// One raw input event as the kernel's evdev interface reports it (struct input_event).
/// Both the live readers and the offline replay tools produce these.
public struct RawInputEvent: Hashable, Sendable {
  /// Seconds on the device's clock (CLOCK_MONOTONIC when the reader could set it).
  public var time: Seconds
  public var type: UInt16
  public var code: UInt16
  public var value: Int32
  public init(time: Seconds, type: UInt16, code: UInt16, value: Int32) {
    self.time = time
    self.type = type
    self.code = code
    self.value = value
  }
}

/// Linux input event types and the codes responderd uses (linux/input-event-codes.h; kernel ABI).
public enum InputCode {
  public static let EV_SYN: UInt16 = 0x00
  public static let EV_KEY: UInt16 = 0x01
  public static let EV_ABS: UInt16 = 0x03
  public static let SYN_REPORT: UInt16 = 0
  public static let SYN_MT_REPORT: UInt16 = 2
  public static let SYN_DROPPED: UInt16 = 3
  public static let BTN_TOUCH: UInt16 = 0x14a
  public static let ABS_X: UInt16 = 0x00
  public static let ABS_Y: UInt16 = 0x01
  public static let ABS_MT_SLOT: UInt16 = 0x2f
  public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
  public static let ABS_MT_POSITION_X: UInt16 = 0x35
  public static let ABS_MT_POSITION_Y: UInt16 = 0x36
  public static let ABS_MT_TRACKING_ID: UInt16 = 0x39
  public static let ABS_MT_PRESSURE: UInt16 = 0x3a

  // Media and remote-control keys: the one table of their codes in the project.
  public static let KEY_MUTE: UInt16 = 113
  public static let KEY_VOLUMEDOWN: UInt16 = 114
  public static let KEY_VOLUMEUP: UInt16 = 115
  public static let KEY_PAUSE: UInt16 = 119
  public static let KEY_STOP: UInt16 = 128
  public static let KEY_NEXTSONG: UInt16 = 163
  public static let KEY_PLAYPAUSE: UInt16 = 164
  public static let KEY_PREVIOUSSONG: UInt16 = 165
  public static let KEY_STOPCD: UInt16 = 166
  public static let KEY_REWIND: UInt16 = 168
  public static let KEY_PLAYCD: UInt16 = 200
  public static let KEY_PAUSECD: UInt16 = 201
  public static let KEY_PLAY: UInt16 = 207
  public static let KEY_FASTFORWARD: UInt16 = 208
  /// KEY_MEDIA; the kernel's KEY_HEADSETHOOK is the same code.
  public static let KEY_MEDIA: UInt16 = 226
  public static let KEY_HEADSETHOOK: UInt16 = KEY_MEDIA
  public static let BTN_0: UInt16 = 0x100
  public static let BTN_1: UInt16 = 0x101
  // Other keys a headset or remote carries (read only on devices responderd owns).
  public static let KEY_PHONE: UInt16 = 169
  public static let KEY_CAMERA: UInt16 = 212
  public static let KEY_MICMUTE: UInt16 = 248
  public static let KEY_PICKUP_PHONE: UInt16 = 0x1bd
  public static let KEY_HANGUP_PHONE: UInt16 = 0x1be
  public static let KEY_VOICECOMMAND: UInt16 = 0x246
  public static let KEY_ASSISTANT: UInt16 = 0x247

  /// Whether a key code is a typing key: letters, digits, punctuation, modifiers, the keypad,
  /// function and navigation keys (KEY_ESC 1 … KEY_MACRO 112, KEY_KPEQUAL 117 … KEY_COMPOSE 127,
  /// KEY_KPLEFTPAREN 179 … KEY_F24 194). Such keys are never read, even on a device responderd
  /// owns: they would be what someone types.
  public static func isTypingKey(_ code: UInt16) -> Bool {
    (1...112).contains(code) || (117...127).contains(code) || (179...194).contains(code)
  }

  /// Media and remote-control key codes by name.
  public static let keys: [String: UInt16] = [
    "KEY_MUTE": KEY_MUTE, "KEY_VOLUMEDOWN": KEY_VOLUMEDOWN, "KEY_VOLUMEUP": KEY_VOLUMEUP,
    "KEY_NEXTSONG": KEY_NEXTSONG, "KEY_PLAYPAUSE": KEY_PLAYPAUSE, "KEY_PREVIOUSSONG": KEY_PREVIOUSSONG,
    "KEY_STOPCD": KEY_STOPCD, "KEY_PLAYCD": KEY_PLAYCD, "KEY_PAUSECD": KEY_PAUSECD,
    "KEY_FASTFORWARD": KEY_FASTFORWARD, "KEY_REWIND": KEY_REWIND, "KEY_PLAY": KEY_PLAY,
    "KEY_PAUSE": KEY_PAUSE,
    "KEY_MEDIA": KEY_MEDIA, "KEY_STOP": KEY_STOP, "BTN_0": BTN_0, "BTN_1": BTN_1,
    "KEY_HEADSETHOOK": KEY_HEADSETHOOK, "KEY_PHONE": KEY_PHONE, "KEY_CAMERA": KEY_CAMERA,
    "KEY_MICMUTE": KEY_MICMUTE, "KEY_PICKUP_PHONE": KEY_PICKUP_PHONE, "KEY_HANGUP_PHONE": KEY_HANGUP_PHONE,
    "KEY_VOICECOMMAND": KEY_VOICECOMMAND, "KEY_ASSISTANT": KEY_ASSISTANT,
  ]

  /// The name of a key code when it is one of `keys`, else "KEY_<code>".
  public static func keyName(_ code: UInt16) -> String {
    if code == KEY_MEDIA { return "KEY_MEDIA" }
    return keys.first { $0.value == code }?.key ?? "KEY_\(code)"
  }

  /// A key code from "KEY_MEDIA", "226" or "0xe2".
  public static func keyCode(named name: String) -> UInt16? {
    if let code = keys[name.uppercased()] { return code }
    if name.lowercased().hasPrefix("0x") { return UInt16(name.dropFirst(2), radix: 16) }
    return UInt16(name)
  }
}

/// The identity of an input device, as evdev reports it and device rules match it.
public struct InputDeviceIdentity: Hashable, Sendable {
  public var name: String
  public var bustype: UInt16
  public var vendor: UInt16
  public var product: UInt16
  public var version: UInt16
  public var phys: String
  public init(
    name: String = "", bustype: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
    phys: String = ""
  ) {
    self.name = name
    self.bustype = bustype
    self.vendor = vendor
    self.product = product
    self.version = version
    self.phys = phys
  }

  /// "bus:vendor:product" in hex ("0003:046d:0a38"), as device rules and status lines name it.
  public var id: String { [bustype, vendor, product].map(InputDeviceLocation.hex).joined(separator: ":") }
}

/// A recording in the format `evemu-record` writes: `N:` name, `I:` bus/vendor/product/version
/// (hex), other header lines (`B:`, `A:`, `P:`, `L:`, `S:`), `#` comments, and
/// `E: <sec>.<usec> <type hex> <code hex> <value>` events.
public struct EvemuRecording: Sendable {
  public var identity: InputDeviceIdentity
  /// Absolute axes from `A: <code hex> <min> <max> <fuzz> <flat> [<resolution>]` lines.
  public var absoluteAxes: [UInt16: (minimum: Int32, maximum: Int32)]
  public var events: [RawInputEvent]

  /// A line that could not be read.
  public struct ParseError: Error, CustomStringConvertible, Equatable {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
    public init(line: Int, message: String) {
      self.line = line
      self.message = message
    }
  }

  /// Parses the text of a recording; errors name the line.
  public init(text: String) throws {
    identity = InputDeviceIdentity()
    absoluteAxes = [:]
    events = []
    var lineNumber = 0
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
      lineNumber += 1
      let line = rawLine.trimmingWhitespace()
      if line.isEmpty || line.hasPrefix("#") { continue }
      guard line.count >= 2, line.dropFirst().first == ":" else {
        throw ParseError(line: lineNumber, message: "expected '<letter>: …', found '\(line.prefix(40))'")
      }
      let tag = line.first!
      var body = line.dropFirst(2).trimmingWhitespace()
      // evemu-record ends E: lines (and some header lines) with "\t# EV_KEY / KEY_… 1": a comment.
      if tag != "N", let hash = body.firstIndex(of: "#") { body = body[..<hash].trimmingWhitespace() }
      let fields = body.split(separator: " ", omittingEmptySubsequences: true)
      switch tag {
      case "N":
        identity.name = String(body)
      case "I":
        let numbers = fields.map { UInt16($0, radix: 16) }
        guard numbers.count == 4, numbers.allSatisfy({ $0 != nil }) else {
          throw ParseError(
            line: lineNumber, message: "I: needs four hex numbers (bus vendor product version)")
        }
        identity.bustype = numbers[0]!
        identity.vendor = numbers[1]!
        identity.product = numbers[2]!
        identity.version = numbers[3]!
      case "A":
        if fields.count >= 3, let code = UInt16(fields[0], radix: 16), let lo = Int32(fields[1]),
          let hi = Int32(fields[2])
        {
          absoluteAxes[code] = (lo, hi)
        } else {
          throw ParseError(line: lineNumber, message: "A: needs '<code hex> <min> <max> …'")
        }
      case "E":
        guard fields.count == 4 else {
          throw ParseError(
            line: lineNumber, message: "E: needs '<sec>.<usec> <type hex> <code hex> <value>'")
        }
        let time = try Self.parseTime(fields[0], line: lineNumber)
        guard let type = UInt16(fields[1], radix: 16), let code = UInt16(fields[2], radix: 16),
          let value = Int32(fields[3])
        else {
          throw ParseError(line: lineNumber, message: "E: bad type, code or value in '\(body)'")
        }
        if let last = events.last, time < last.time {
          throw ParseError(line: lineNumber, message: "time goes backwards (\(time) after \(last.time))")
        }
        events.append(RawInputEvent(time: time, type: type, code: code, value: value))
      case "B", "P", "L", "S", "U", "R":
        continue
      default:
        throw ParseError(line: lineNumber, message: "unknown line type '\(tag):'")
      }
    }
  }

  /// `<sec>.<usec>`: the part after the dot is an integer count of microseconds, as evemu writes
  /// (`%06u`) and reads it (`2.050000` and `2.50000` are both 2.05 s).
  private static func parseTime(_ field: Substring, line: Int) throws -> Seconds {
    let parts = field.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, let seconds = Int(parts[0]) else {
      throw ParseError(line: line, message: "bad time '\(field)'")
    }
    guard parts.count == 2 else { return Seconds(seconds) }
    guard let micros = Int(parts[1]), parts[1].count <= 6 else {
      throw ParseError(line: line, message: "bad microseconds in '\(field)'")
    }
    return Seconds(seconds) + Seconds(micros) / 1_000_000
  }
}

extension StringProtocol {
  /// The text without leading and trailing spaces, tabs and carriage returns.
  public func trimmingWhitespace() -> Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let start = firstIndex(where: { !isSpace($0) }) else { return Substring() }
    let end = lastIndex(where: { !isSpace($0) })!
    return Substring(self[start...end])
  }
}
