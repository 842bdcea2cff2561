/// A small JSON reader for `responderctl touch replay` scenes (no Foundation in the library): every
/// value and key remembers its line and column, so that errors can say where they are.
public enum TouchSceneJSON {
  /// A JSON value.
  /// Not `indirect`: the arrays of objects and lists hold their nodes already, and a box per value
  /// (every number of a big scene) was most of its parse.
  public enum Value: Equatable {
    case object([Member])
    case array([Node])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
  }

  /// A value and where it starts (1-based line and column).
  public struct Node: Equatable {
    public var value: Value
    public var line: Int
    public var column: Int
  }

  /// An object member: its key, where the key is, and its value.
  public struct Member: Equatable {
    public var key: String
    public var line: Int
    public var column: Int
    public var node: Node
  }

  /// A syntax error, with where it is.
  public struct SyntaxError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "\(line):\(column): \(message)" }
  }

  /// Parses a whole document (one value, surrounded by white space only).
  public static func parse(_ text: String) throws -> Node {
    var parser = Parser(bytes: Array(text.utf8))
    parser.skipSpace()
    let node = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.index == parser.bytes.count else {
      throw parser.error("unexpected \(parser.describeCurrent()) after the document")
    }
    return node
  }

  private struct Parser {
    let bytes: [UInt8]
    var index = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// How far `column` has counted the characters of the line, and how many it found: each
    /// byte of a line is counted once, however long the line (a whole scene may be one line).
    var countedTo = 0
    var countedCharacters = 0

    /// The 1-based column of `index`, in characters (not bytes) from the start of the line.
    var column: Int {
      mutating get {
        if countedTo < lineStart {
          countedTo = lineStart
          countedCharacters = 0
        }
        while countedTo < index {
          if bytes[countedTo] & 0xC0 != 0x80 { countedCharacters += 1 }
          countedTo += 1
        }
        return countedCharacters + 1
      }
    }

    mutating func error(_ message: String) -> SyntaxError {
      SyntaxError(line: line, column: column, message: message)
    }

    func describeCurrent() -> String {
      guard index < bytes.count else { return "end of file" }
      let byte = bytes[index]
      if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
      return "byte 0x\(String(byte, radix: 16))"
    }

    mutating func skipSpace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0D: index += 1
        case 0x0A:
          index += 1
          line += 1
          lineStart = index
        default: return
        }
      }
    }

    mutating func value(depth: Int) throws -> Node {
      guard depth < 200 else { throw error("nested too deeply") }
      let startLine = line
      let startColumn = column
      guard index < bytes.count else { throw error("expected a value, found end of file") }
      let value: Value
      switch bytes[index] {
      case UInt8(ascii: "{"): value = try object(depth: depth)
      case UInt8(ascii: "["): value = try array(depth: depth)
      case UInt8(ascii: "\""): value = .string(try string())
      case UInt8(ascii: "t"): value = try literal("true", .bool(true))
      case UInt8(ascii: "f"): value = try literal("false", .bool(false))
      case UInt8(ascii: "n"): value = try literal("null", .null)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try number())
      default: throw error("expected a value, found \(describeCurrent())")
      }
      return Node(value: value, line: startLine, column: startColumn)
    }

    mutating func literal(_ word: String, _ value: Value) throws -> Value {
      let expected = Array(word.utf8)
      guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected
      else {
        throw error("expected a value, found \(describeCurrent())")
      }
      index += expected.count
      return value
    }

    mutating func object(depth: Int) throws -> Value {
      if opensEmpty(closedBy: "}") { return .object([]) }
      var members: [Member] = []
      var keys: Set<String> = []
      while true {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
          throw error("expected a key in quotes, found \(describeCurrent())")
        }
        let keyLine = line
        let keyColumn = column
        let key = try string()
        // A set once the object is large: a check per key stays constant, not the object's length.
        let duplicate: Bool
        if members.count < 16 {
          duplicate = members.contains { $0.key == key }
          if members.count == 15 && !duplicate { keys = Set(members.map(\.key)) }
        } else {
          duplicate = keys.contains(key)
        }
        if duplicate {
          throw SyntaxError(line: keyLine, column: keyColumn, message: "duplicate key '\(key)'")
        }
        if members.count >= 15 { keys.insert(key) }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
          throw error("expected ':' after key '\(key)', found \(describeCurrent())")
        }
        index += 1
        skipSpace()
        let node = try value(depth: depth + 1)
        members.append(Member(key: key, line: keyLine, column: keyColumn, node: node))
        if try closes(with: "}") { return .object(members) }
      }
    }

    mutating func array(depth: Int) throws -> Value {
      if opensEmpty(closedBy: "]") { return .array([]) }
      var items: [Node] = []
      while true {
        skipSpace()
        items.append(try value(depth: depth + 1))
        if try closes(with: "]") { return .array(items) }
      }
    }

    /// Past the `{` or `[` at the index: true, and past `close` too, when nothing is inside.
    mutating func opensEmpty(closedBy close: Unicode.Scalar) -> Bool {
      index += 1
      skipSpace()
      guard index < bytes.count && bytes[index] == UInt8(ascii: close) else { return false }
      index += 1
      return true
    }

    /// After an item of an object or array: true past `close`, false past a comma (another item
    /// follows); anything else is an error.
    mutating func closes(with close: Unicode.Scalar) throws -> Bool {
      skipSpace()
      guard index < bytes.count else { throw error("expected ',' or '\(close)', found end of file") }
      guard bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: close) else {
        throw error("expected ',' or '\(close)', found \(describeCurrent())")
      }
      index += 1
      return bytes[index - 1] == UInt8(ascii: close)
    }

    mutating func hex4() throws -> UInt32 {
      guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
      var value: UInt32 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        let digit: UInt32
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
        default: throw error("bad hex digit in \\u escape")
        }
        value = value * 16 + digit
        index += 1
      }
      return value
    }

    mutating func string() throws -> String {
      index += 1
      // Most strings have no escape: made from their bytes at once.
      let start = index
      var end = index
      while end < bytes.count {
        let byte = bytes[end]
        if byte == UInt8(ascii: "\"") {
          index = end + 1
          return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
        end += 1
      }
      var scalars = String.UnicodeScalarView()
      var run: [UInt8] = []
      func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
        guard !run.isEmpty else { return }
        scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
        run.removeAll()
      }
      while true {
        guard index < bytes.count else { throw error("unterminated string") }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""):
          index += 1
          flush(&run, into: &scalars)
          return String(scalars)
        case UInt8(ascii: "\\"):
          flush(&run, into: &scalars)
          index += 1
          guard index < bytes.count else { throw error("unterminated string") }
          let escape = bytes[index]
          index += 1
          switch escape {
          case UInt8(ascii: "\""): scalars.append("\"")
          case UInt8(ascii: "\\"): scalars.append("\\")
          case UInt8(ascii: "/"): scalars.append("/")
          case UInt8(ascii: "b"): scalars.append("\u{08}")
          case UInt8(ascii: "f"): scalars.append("\u{0C}")
          case UInt8(ascii: "n"): scalars.append("\n")
          case UInt8(ascii: "r"): scalars.append("\r")
          case UInt8(ascii: "t"): scalars.append("\t")
          case UInt8(ascii: "u"):
            var code = try hex4()
            if code >= 0xD800 && code < 0xDC00 {
              guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
              else { throw error("unpaired surrogate in \\u escape") }
              index += 2
              let low = try hex4()
              guard low >= 0xDC00 && low < 0xE000 else { throw error("unpaired surrogate in \\u escape") }
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
            scalars.append(scalar)
          default:
            index -= 1
            throw error("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
          }
        case 0x00..<0x20:
          throw error("control character in a string (write it as an escape)")
        default:
          run.append(byte)
          index += 1
        }
      }
    }

    mutating func number() throws -> Double {
      let start = index
      if bytes[index] == UInt8(ascii: "-") { index += 1 }
      func digits(_ parser: inout Parser) -> Int {
        var count = 0
        while parser.index < parser.bytes.count, parser.bytes[parser.index] >= UInt8(ascii: "0"),
          parser.bytes[parser.index] <= UInt8(ascii: "9")
        {
          parser.index += 1
          count += 1
        }
        return count
      }
      guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
        throw error("expected a digit")
      }
      if bytes[index] == UInt8(ascii: "0") {
        index += 1
      } else {
        _ = digits(&self)
      }
      if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
        index += 1
        guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
      }
      if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
        index += 1
        if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
          index += 1
        }
        guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
      }
      let text = String(decoding: bytes[start..<index], as: UTF8.self)
      guard let value = Double(text) else { throw error("bad number '\(text)'") }
      return value
    }
  }
}
