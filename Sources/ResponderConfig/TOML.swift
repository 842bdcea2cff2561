/// A TOML document parser that keeps the line of every key, so that config errors can name it.
///
/// It reads TOML 1.0 (tables, arrays of tables, dotted and quoted keys, basic/literal/multi-line
/// strings, integers in every base, floats, booleans, arrays, inline tables) except dates and
/// times, which no responderd setting uses and which are refused with a clear error.
public enum TOML {
  /// A value with the line it starts on.
  public indirect enum Value {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case array([Value], line: Int)
    case table(Table)

    /// The name of the value's type, for error messages.
    public var typeName: String {
      switch self {
      case .string: "a string"
      case .integer: "an integer"
      case .float: "a float"
      case .boolean: "a boolean"
      case .array: "an array"
      case .table: "a table"
      }
    }
  }

  /// A table: keys in the order they appear, with their lines.
  public final class Table {
    public private(set) var keys: [String] = []
    private var values: [String: Value] = [:]
    private var lines: [String: Int] = [:]
    /// The line of the table's header (or of its first key), 0 for the root.
    public let line: Int
    /// How the table came to be, to refuse redefinitions as TOML does.
    var origin: Origin

    enum Origin {
      case header, implicit, dotted, inline, arrayElement
    }

    init(line: Int, origin: Origin) {
      self.line = line
      self.origin = origin
    }

    public subscript(key: String) -> Value? { values[key] }
    /// The line `key` is defined on.
    public func line(of key: String) -> Int? { lines[key] }

    func set(_ key: String, _ value: Value, line: Int) {
      if values[key] == nil { keys.append(key) }
      values[key] = value
      lines[key] = line
    }

    /// What `key` holds, as a table header sees it (without keeping a reference to an array, so
    /// that `appendElement` can then grow it in place).
    func entry(_ key: String) -> Entry {
      switch values[key] {
      case nil: .absent
      case .table(let table): .table(table)
      case .array(let elements, _):
        if case .table(let last)? = elements.last, last.origin == .arrayElement {
          .arrayOfTables(last: last)
        } else {
          .other("an array of values")
        }
      case let value?: .other(value.typeName)
      }
    }

    enum Entry {
      case absent
      case table(Table)
      case arrayOfTables(last: Table)
      /// Anything else, by its type's name.
      case other(String)
    }

    /// Appends a table to the array of tables at `key` in place (taking the array out of the
    /// dictionary first, so that it is not copied: many `[[x]]` headers stay linear).
    func appendElement(_ element: Table, to key: String) {
      guard case .array(var elements, let line)? = values.removeValue(forKey: key) else { return }
      elements.append(.table(element))
      values[key] = .array(elements, line: line)
    }
  }

  /// How deeply arrays, inline tables and dotted keys may nest: far more than any config needs,
  /// and far less than what would exhaust the stack of the reader (or of the values' release).
  public static let maximumDepth = 64

  /// A syntax error, with its position.
  public struct SyntaxError: Error, CustomStringConvertible, Equatable {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "line \(line), column \(column): \(message)" }
    public init(line: Int, column: Int, message: String) {
      self.line = line
      self.column = column
      self.message = message
    }
  }

  /// Parses a document into its root table. A byte order mark at the start is skipped.
  public static func parse(_ text: String) throws -> Table {
    var bytes = Array(text.utf8)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    var parser = Parser(bytes: bytes)
    return try parser.document()
  }
}

private struct Parser {
  let bytes: [UInt8]
  var index = 0
  var line = 1
  var lineStart = 0
  let root = TOML.Table(line: 0, origin: .header)
  /// How many arrays and inline tables enclose the value being read.
  var depth = 0

  init(bytes: [UInt8]) { self.bytes = bytes }

  var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
  func peek(at offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

  /// A byte as an error message shows it: the character, or its code when it is not printable.
  func describe(_ byte: UInt8) -> String {
    byte >= 0x21 && byte < 0x7f ? "'\(Character(Unicode.Scalar(byte)))'" : "the character U+\(hex(byte))"
  }

  func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }

  func error(_ message: String) -> TOML.SyntaxError {
    TOML.SyntaxError(line: line, column: index - lineStart + 1, message: message)
  }

  mutating func advance() {
    if bytes[index] == UInt8(ascii: "\n") {
      line += 1
      lineStart = index + 1
    }
    index += 1
  }

  mutating func skipSpaces() {
    while let c = peek, c == 0x20 || c == 0x09 { index += 1 }
  }

  mutating func skipComment() throws {
    guard peek == UInt8(ascii: "#") else { return }
    while let c = peek, c != UInt8(ascii: "\n") {
      if c < 0x20 && c != 0x09 && !(c == 0x0d && peek(at: 1) == 0x0a) {
        throw error("control character in a comment")
      }
      index += 1
    }
  }

  /// Spaces, a comment, then the end of the line or of the document.
  mutating func endOfLine() throws {
    skipSpaces()
    try skipComment()
    if peek == 0x0d && peek(at: 1) == 0x0a { index += 1 }
    guard let c = peek else { return }
    guard c == UInt8(ascii: "\n") else {
      throw error("expected the end of the line, found \(describe(c))")
    }
    advance()
  }

  /// Spaces, comments and newlines (inside arrays).
  mutating func skipBlank() throws {
    while true {
      skipSpaces()
      try skipComment()
      if peek == 0x0d && peek(at: 1) == 0x0a { index += 1 }
      guard peek == UInt8(ascii: "\n") else { return }
      advance()
    }
  }

  mutating func document() throws -> TOML.Table {
    var current = root
    while true {
      try skipBlank()
      guard let c = peek else { break }
      if c == UInt8(ascii: "[") {
        current = try header()
      } else {
        try keyValue(into: current)
      }
      try endOfLine()
    }
    return root
  }

  mutating func header() throws -> TOML.Table {
    let headerLine = line
    index += 1
    let isArray = peek == UInt8(ascii: "[")
    if isArray { index += 1 }
    skipSpaces()
    let path = try key()
    skipSpaces()
    guard peek == UInt8(ascii: "]") else { throw error("expected ']' to close the table header") }
    index += 1
    if isArray {
      guard peek == UInt8(ascii: "]") else {
        throw error("expected ']]' to close the array-of-tables header")
      }
      index += 1
    }
    var table = root
    for (position, name) in path.enumerated() {
      let last = position == path.count - 1
      switch table.entry(name) {
      case .absent:
        if last && isArray {
          let element = TOML.Table(line: headerLine, origin: .arrayElement)
          table.set(name, .array([.table(element)], line: headerLine), line: headerLine)
          return element
        }
        let child = TOML.Table(line: headerLine, origin: last ? .header : .implicit)
        table.set(name, .table(child), line: headerLine)
        table = child
      case .table(let child):
        if last {
          if isArray { throw error("'\(shown(name))' is already a table, not an array of tables") }
          guard child.origin == .implicit else {
            throw error("table '\(shown(path.joined(separator: ".")))' is defined twice")
          }
          child.origin = .header
        }
        table = child
      case .arrayOfTables(let lastElement):
        if last {
          guard isArray else {
            throw error(
              "'\(shown(name))' is an array of tables; use [[\(shown(path.joined(separator: ".")))]]")
          }
          let element = TOML.Table(line: headerLine, origin: .arrayElement)
          table.appendElement(element, to: name)
          return element
        }
        table = lastElement
      case .other(let typeName):
        throw error("'\(shown(name))' is already \(typeName), not a table")
      }
    }
    return table
  }

  mutating func keyValue(into table: TOML.Table) throws {
    let keyLine = line
    let path = try key()
    skipSpaces()
    guard peek == UInt8(ascii: "=") else {
      throw error("expected '=' after the key '\(shown(path.joined(separator: ".")))'")
    }
    index += 1
    skipSpaces()
    let value = try self.value()
    var target = table
    for name in path.dropLast() {
      switch target[name] {
      case nil:
        let child = TOML.Table(line: keyLine, origin: .dotted)
        target.set(name, .table(child), line: keyLine)
        target = child
      case .table(let child) where child.origin == .dotted || child.origin == .implicit:
        target = child
      default:
        throw error("'\(shown(name))' is already defined and cannot take dotted keys here")
      }
    }
    let name = path.last!
    if target[name] != nil { throw error("key '\(shown(path.joined(separator: ".")))' is defined twice") }
    target.set(name, value, line: keyLine)
  }

  mutating func key() throws -> [String] {
    var parts: [String] = []
    while true {
      skipSpaces()
      guard let c = peek else { throw error("expected a key") }
      if c == UInt8(ascii: "\"") {
        parts.append(try basicString())
      } else if c == UInt8(ascii: "'") {
        parts.append(try literalString())
      } else {
        let start = index
        while let b = peek, isBareKeyByte(b) { index += 1 }
        guard index > start else {
          throw error("expected a key, found \(describe(c))")
        }
        parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
      }
      skipSpaces()
      guard peek == UInt8(ascii: ".") else { return parts }
      guard depth + parts.count < TOML.maximumDepth else {
        throw error("a dotted key of more than \(TOML.maximumDepth) parts")
      }
      index += 1
    }
  }

  /// Control characters other than tab, newline and carriage return (CR is checked with its LF).
  func isForbiddenInString(_ b: UInt8) -> Bool {
    (b < 0x20 && b != 0x09 && b != 0x0a && b != 0x0d) || b == 0x7f
  }

  func isBareKeyByte(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b == 0x5f || b == 0x2d
  }

  mutating func value() throws -> TOML.Value {
    guard let c = peek else { throw error("expected a value") }
    switch c {
    case UInt8(ascii: "\""):
      return .string(try basicString())
    case UInt8(ascii: "'"):
      return .string(try literalString())
    case UInt8(ascii: "["):
      return try array()
    case UInt8(ascii: "{"):
      return try inlineTable()
    case UInt8(ascii: "t"), UInt8(ascii: "f"):
      if matches("true") {
        index += 4
        return .boolean(true)
      }
      if matches("false") {
        index += 5
        return .boolean(false)
      }
      return try number()
    default:
      return try number()
    }
  }

  func matches(_ word: String) -> Bool {
    let w = Array(word.utf8)
    guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { return false }
    if let next = peek(at: w.count), isBareKeyByte(next) { return false }
    return true
  }

  mutating func number() throws -> TOML.Value {
    let start = index
    while let b = peek, isBareKeyByte(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: ".") || b == 0x3a {
      index += 1
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    let end = index
    index = start
    if text.isEmpty {
      throw error(peek.map { "expected a value, found \(describe($0))" } ?? "expected a value")
    }
    if text.contains(":") || (text.count >= 10 && text.dropFirst(4).first == "-" && text.first != "-") {
      throw error("dates and times are not supported in responderd configs")
    }
    let plain = text.replacingUnderscores()
    let sign: Int64 = plain.hasPrefix("-") ? -1 : 1
    let unsigned = plain.hasPrefix("-") || plain.hasPrefix("+") ? String(plain.dropFirst()) : plain
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where unsigned.hasPrefix(prefix) {
      guard sign == 1, !plain.hasPrefix("+"), let v = Int64(unsigned.dropFirst(2), radix: radix) else {
        throw error("bad number '\(shown(text))'")
      }
      index = end
      return .integer(v)
    }
    if unsigned == "inf" || unsigned == "nan" {
      index = end
      return .float(unsigned == "nan" ? .nan : Double(sign) * .infinity)
    }
    if let v = Int64(unsigned), !(unsigned.count > 1 && unsigned.hasPrefix("0")) {
      index = end
      return .integer(sign * v)
    }
    if unsigned.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let v = Double(unsigned),
      unsigned.first?.isNumber == true, unsigned.last?.isNumber == true
    {
      index = end
      return .float(Double(sign) * v)
    }
    throw error("expected a value, found '\(shown(text))' (did you forget quotes around a string?)")
  }

  /// Enters an array or inline table, refusing to nest deeper than `TOML.maximumDepth`.
  mutating func nest() throws {
    guard depth < TOML.maximumDepth else {
      throw error("arrays and inline tables nested more than \(TOML.maximumDepth) levels deep")
    }
    depth += 1
  }

  mutating func array() throws -> TOML.Value {
    let arrayLine = line
    try nest()
    defer { depth -= 1 }
    index += 1
    var elements: [TOML.Value] = []
    while true {
      try skipBlank()
      guard let c = peek else { throw error("unterminated array (opened on line \(arrayLine))") }
      if c == UInt8(ascii: "]") {
        index += 1
        return .array(elements, line: arrayLine)
      }
      elements.append(try value())
      try skipBlank()
      if peek == UInt8(ascii: ",") {
        index += 1
      } else if peek != UInt8(ascii: "]") {
        throw error("expected ',' or ']' in the array")
      }
    }
  }

  mutating func inlineTable() throws -> TOML.Value {
    let table = TOML.Table(line: line, origin: .inline)
    try nest()
    defer { depth -= 1 }
    index += 1
    skipSpaces()
    if peek == UInt8(ascii: "}") {
      index += 1
      return .table(table)
    }
    while true {
      skipSpaces()
      try keyValue(into: table)
      skipSpaces()
      if peek == UInt8(ascii: ",") {
        index += 1
      } else if peek == UInt8(ascii: "}") {
        index += 1
        return .table(table)
      } else {
        throw error("expected ',' or '}' in the inline table")
      }
    }
  }

  mutating func literalString() throws -> String {
    let multi = peek(at: 1) == UInt8(ascii: "'") && peek(at: 2) == UInt8(ascii: "'")
    index += multi ? 3 : 1
    if multi && peek == UInt8(ascii: "\n") { advance() }
    let start = index
    while true {
      guard let c = peek else { throw error("unterminated string") }
      if c == UInt8(ascii: "'") {
        if !multi {
          index += 1
          return String(decoding: bytes[start..<index - 1], as: UTF8.self)
        }
        if peek(at: 1) == UInt8(ascii: "'") && peek(at: 2) == UInt8(ascii: "'") {
          var end = index
          index += 3
          while peek == UInt8(ascii: "'") && index - end < 5 {
            index += 1
            end += 1
          }
          return String(decoding: bytes[start..<end], as: UTF8.self)
        }
      } else if c == UInt8(ascii: "\n") && !multi {
        throw error("newline in a single-line string")
      } else if isForbiddenInString(c) {
        throw error("\(describe(c)) in a string (TOML allows only tab among control characters)")
      }
      advance()
    }
  }

  mutating func basicString() throws -> String {
    let multi = peek(at: 1) == UInt8(ascii: "\"") && peek(at: 2) == UInt8(ascii: "\"")
    index += multi ? 3 : 1
    if multi && peek == UInt8(ascii: "\n") { advance() }
    var out: [UInt8] = []
    while true {
      guard let c = peek else { throw error("unterminated string") }
      if c == UInt8(ascii: "\"") {
        if !multi {
          index += 1
          break
        }
        if peek(at: 1) == UInt8(ascii: "\"") && peek(at: 2) == UInt8(ascii: "\"") {
          index += 3
          var extra = 0
          while peek == UInt8(ascii: "\"") && extra < 2 {
            out.append(c)
            index += 1
            extra += 1
          }
          break
        }
        out.append(c)
        index += 1
      } else if c == UInt8(ascii: "\\") {
        index += 1
        guard let e = peek else { throw error("unterminated escape") }
        index += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0a)
        case UInt8(ascii: "f"): out.append(0x0c)
        case UInt8(ascii: "r"): out.append(0x0d)
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5c)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
          let count = e == UInt8(ascii: "u") ? 4 : 8
          guard index + count <= bytes.count,
            let code = UInt32(String(decoding: bytes[index..<index + count], as: UTF8.self), radix: 16),
            let scalar = Unicode.Scalar(code)
          else { throw error("bad unicode escape") }
          index += count
          out.append(contentsOf: Array(String(Character(scalar)).utf8))
        case 0x20, 0x09, 0x0a, 0x0d:
          guard multi else { throw error("a line-ending backslash only works in multi-line strings") }
          index -= 1
          while let w = peek, w == 0x20 || w == 0x09 || w == 0x0a || w == 0x0d { advance() }
        default:
          throw error("unknown escape '\\\(Character(Unicode.Scalar(e)))'")
        }
      } else if c == UInt8(ascii: "\n") {
        guard multi else { throw error("newline in a single-line string") }
        out.append(c)
        advance()
      } else if isForbiddenInString(c) {
        throw error("\(describe(c)) in a string (write it as an escape, such as \\u\(hex(c)))")
      } else {
        out.append(c)
        index += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}

extension String {
  fileprivate func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
