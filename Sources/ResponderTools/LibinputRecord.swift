import InputCodes
import TouchScenes

/// `responderctl touch convert FILE.yml`: a `libinput record` recording (YAML, file version 1)
/// turned into evemu text, which `touch replay` and evemu-play read.
///
/// Of the first device of the file: `evdev: name`, `id` (bus, vendor, product, version, decimal),
/// `codes` (type: [codes]) become the `N:`, `I:` and `B:` lines, `properties` the `P:` line,
/// `absinfo` (code: [min, max, fuzz, flat, resolution]) the `A:` lines, and every event
/// `- [sec, usec, type, code, value]` under `events:` an `E:` line. Comments (`#`) and the other
/// sections (libinput, system, udev, quirks, hid, libinput events) are left out.
public enum LibinputRecord {
  /// The evemu text of `text`; errors name the file and the line.
  public static func evemu(fromYAML text: String, file: String) throws -> String {
    var name: String?
    var identity: [Int]?
    var codes: [(type: Int, codes: [Int])] = []
    var absinfo: [(code: Int, values: [Int])] = []
    var properties: [Int] = []
    var events: [String] = []
    var section = ""
    var devices = 0
    var lineNumber = 0
    func error(_ message: String) -> ToolInputError {
      ToolInputError(file: file, line: lineNumber, message: message)
    }
    /// "[1, 2, 3]" → [1, 2, 3].
    func numbers(_ list: Substring) throws -> [Int] {
      let body = list.trimmingWhitespace()
      guard body.hasPrefix("["), body.hasSuffix("]") else { throw error("expected a list '[…]'") }
      let inner = body.dropFirst().dropLast()
      if inner.trimmingWhitespace().isEmpty { return [] }
      return try inner.split(separator: ",").map {
        guard let value = Int($0.trimmingWhitespace()) else {
          throw error("'\($0.trimmingWhitespace())' is not a number")
        }
        return value
      }
    }
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
      lineNumber += 1
      // A comment runs from a '#' outside double quotes to the end of the line.
      var line = Substring(rawLine)
      var quoted = false
      for index in line.indices {
        if line[index] == "\"" { quoted.toggle() }
        if line[index] == "#" && !quoted {
          line = line[..<index]
          break
        }
      }
      let indent = line.prefix { $0 == " " }.count
      let content = line.trimmingWhitespace()
      if content.isEmpty { continue }
      if content.hasPrefix("- node:") {
        devices += 1
        section = ""
        continue
      }
      guard devices == 1 else { continue }  // the first device only
      if content.hasPrefix("- [") {
        guard section == "events" else { continue }
        let values = try numbers(content.dropFirst(2))
        guard values.count == 5, values[1] >= 0, values[1] < 1_000_000, values[2] >= 0, values[2] <= 0xffff,
          values[3] >= 0, values[3] <= 0xffff, let value = Int32(exactly: values[4])
        else { throw error("an event needs [sec, usec, type, code, value]") }
        let usec = String(values[1])
        events.append(
          "E: \(values[0]).\(String(repeating: "0", count: 6 - usec.count))\(usec) \(hex(values[2], 4)) \(hex(values[3], 4)) \(value)"
        )
        continue
      }
      guard let colon = content.firstIndex(of: ":") else { continue }
      let key = content[..<colon].trimmingWhitespace()
      let value = content[content.index(after: colon)...].trimmingWhitespace()
      switch (section, key) {
      case (_, "evdev") where value.isEmpty && indent <= 4 && section != "events":
        section = "evdev"
      case (_, "events") where value.isEmpty:
        section = "events"
      case ("evdev", "name"):
        name = String(
          value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
            ? value.dropFirst().dropLast() : value)
      case ("evdev", "id"):
        let values = try numbers(value)
        guard values.count == 4, values.allSatisfy({ $0 >= 0 && $0 <= 0xffff }) else {
          throw error("id needs [bus, vendor, product, version]")
        }
        identity = values
      case ("evdev", "codes"), ("codes", "codes"):
        section = "codes"
      case ("evdev", "absinfo"), ("codes", "absinfo"):
        section = "absinfo"
      case (_, "properties") where section == "evdev" || section == "codes" || section == "absinfo":
        properties = try numbers(value).filter { $0 >= 0 && $0 < 64 }
        section = "evdev"
      case ("codes", _):
        guard let type = Int(key), type >= 0, type < 0x20 else {
          throw error("'\(key)' is not an event type")
        }
        codes.append((type, try numbers(value).filter { $0 >= 0 && $0 < 0x300 }))
      case ("absinfo", _):
        guard let code = Int(key), code >= 0, code < 0x40 else { throw error("'\(key)' is not an axis code") }
        let values = try numbers(value)
        guard values.count >= 4 else { throw error("absinfo needs [min, max, fuzz, flat, resolution]") }
        absinfo.append((code, values))
      default:
        if indent <= 4 && section != "events" { section = key == "evdev" ? "evdev" : "" }
      }
    }
    guard devices > 0 else {
      throw ToolInputError(
        file: file, message: "no device ('- node:' under 'devices:'): not a libinput record file")
    }
    guard let name else {
      throw ToolInputError(file: file, message: "the device has no 'name:' under 'evdev:'")
    }
    var out = ["# EVEMU 1.3", "# Converted from the libinput record file \(file)", "N: \(name)"]
    let id = identity ?? [0, 0, 0, 0]
    out.append("I: " + id.map { hex($0, 4) }.joined(separator: " "))
    var propertyBits = [UInt8](repeating: 0, count: 8)
    for property in properties { propertyBits[property / 8] |= 1 << (property % 8) }
    out.append("P: " + propertyBits.map { hex(Int($0), 2) }.joined(separator: " "))
    for (type, list) in codes.sorted(by: { $0.type < $1.type }) {
      // evemu: 8 bytes a line, as many as the type's highest code needs.
      let size = max((list.max() ?? 0) / 8 + 1, 1)
      var bits = [UInt8](repeating: 0, count: (size + 7) / 8 * 8)
      for code in list { bits[code / 8] |= 1 << (code % 8) }
      for start in stride(from: 0, to: bits.count, by: 8) {
        out.append(
          "B: \(hex(type, 2)) " + bits[start..<start + 8].map { hex(Int($0), 2) }.joined(separator: " "))
      }
    }
    for (code, values) in absinfo.sorted(by: { $0.code < $1.code }) {
      let resolution = values.count > 4 ? values[4] : 0
      out.append("A: \(hex(code, 2)) \(values[0]) \(values[1]) \(values[2]) \(values[3]) \(resolution)")
    }
    out += events
    return out.joined(separator: "\n") + "\n"
  }

  private static func hex(_ value: Int, _ digits: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(digits - text.count, 0)) + text
  }
}
