/// A JSON value with ordered keys, written on one line (no Foundation): the JSON output of
/// responderctl and of the offline tools.
public enum JSON {
  case string(String)
  /// Integral values are written as integers, others as Swift prints them (`null` when not finite).
  case number(Double)
  case bool(Bool)
  case null
  case array([JSON])
  case object([(String, JSON)])
  /// Text that is JSON already, written as is: a number formatted to a given precision
  /// (`formatNumber`), a value written with another layout.
  case raw(String)

  /// What separates array elements and object members, and keys from values.
  public struct Layout: Sendable {
    public var comma: String
    public var colon: String

    public init(comma: String, colon: String) {
      self.comma = comma
      self.colon = colon
    }

    /// `{"a": 1, "b": [1, 2]}`.
    public static let spaced = Layout(comma: ", ", colon: ": ")
    /// `{"a":1,"b":[1,2]}`.
    public static let compact = Layout(comma: ",", colon: ":")
  }

  /// The value written with the `spaced` layout.
  public var text: String { text(.spaced) }

  /// The value written with `layout`.
  public func text(_ layout: Layout) -> String {
    switch self {
    case .string(let value): return Self.quote(value)
    case .number(let value):
      guard value.isFinite else { return "null" }
      if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
      return String(value)
    case .bool(let value): return value ? "true" : "false"
    case .null: return "null"
    case .array(let values):
      return "[" + values.map { $0.text(layout) }.joined(separator: layout.comma) + "]"
    case .object(let fields):
      return "{"
        + fields.map { Self.quote($0.0) + layout.colon + $0.1.text(layout) }.joined(separator: layout.comma)
        + "}"
    case .raw(let text): return text
    }
  }

  /// A JSON string literal: quotes, backslashes and control characters escaped.
  public static func quote(_ text: String) -> String {
    // Most text needs no escape: copied at once (a replay writes a line per responder reached).
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
      return "\"" + text + "\""
    }
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }
}

/// A number with at most `decimals` decimals, trailing zeros dropped ("2.4", "3", "-0.125"); "0"
/// when not finite.
public func formatNumber(_ value: Double, decimals: Int) -> String {
  guard value.isFinite else { return "0" }
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let scaled = (abs(value) * scale).rounded()
  guard scaled < 9e15 else { return "\(value)" }
  let units = Int64(scaled)
  let whole = units / Int64(scale)
  if units % Int64(scale) == 0 { return value < 0 && units != 0 ? "-\(whole)" : String(whole) }
  var fraction = String(units % Int64(scale))
  fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
  while fraction.hasSuffix("0") { fraction.removeLast() }
  let sign = value < 0 && units != 0 ? "-" : ""
  return fraction.isEmpty ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
}
