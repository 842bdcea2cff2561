/// A config error: the file, the line and the key, and what was expected.
public struct ConfigError: Error, CustomStringConvertible, Equatable {
  public var file: String
  public var line: Int
  /// The dotted key the error is about ("keys.click-interval"), empty for syntax errors.
  public var key: String
  public var message: String

  public init(file: String, line: Int, key: String, message: String) {
    self.file = file
    self.line = line
    self.key = shown(key)
    self.message = message
  }

  /// `FILE:LINE: message`, as compilers write it (`FILE: message` about the whole file, line 0).
  public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// One table of a config file, read through typed accessors. Every key read is remembered, so
/// that `finish()` can refuse the keys nobody asked for, with a "did you mean" for near misses.
public final class ConfigSection {
  public let file: String
  /// The dotted path of this table ("" for the root).
  public let path: String
  let table: TOML.Table
  private var known: [String] = []

  public init(file: String, path: String, table: TOML.Table) {
    self.file = file
    self.path = path
    self.table = table
  }

  /// Parses a whole document into its root section; syntax errors name file, line and column.
  public static func root(text: String, file: String) throws -> ConfigSection {
    do {
      return ConfigSection(file: file, path: "", table: try TOML.parse(text))
    } catch let error as TOML.SyntaxError {
      throw ConfigError(
        file: file, line: error.line, key: "", message: "column \(error.column): \(error.message)")
    }
  }

  /// Whether the key is present.
  public func contains(_ key: String) -> Bool {
    table[key] != nil
  }

  /// The line of `key`, or of the table when the key is absent.
  public func line(of key: String) -> Int { table.line(of: key) ?? table.line }

  /// The dotted name of `key` in this section.
  public func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  /// An error about `key`, at its line.
  public func error(_ key: String, _ message: String) -> ConfigError {
    ConfigError(file: file, line: line(of: key), key: qualified(key), message: message)
  }

  private func value(_ key: String) -> TOML.Value? {
    known.append(key)
    return table[key]
  }

  /// The value of `key` as written, of any type (for keys that take a number or a word).
  public func anyValue(_ key: String) -> TOML.Value? { value(key) }

  private func wrongType(_ key: String, _ value: TOML.Value, expected: String) -> ConfigError {
    error(key, "'\(qualified(key))' must be \(expected), not \(value.typeName)")
  }

  /// A string; `allowed` restricts it to a set of words.
  public func string(_ key: String, default fallback: String, allowed: [String]? = nil) throws -> String {
    guard let value = value(key) else { return fallback }
    guard case .string(let string) = value else { throw wrongType(key, value, expected: "a string") }
    if let allowed, !allowed.contains(string) {
      let hint = suggestion(for: string, among: allowed).map { " (did you mean '\($0)'?)" } ?? ""
      throw error(
        key,
        "'\(qualified(key))' must be one of \(allowed.map { "'\($0)'" }.joined(separator: ", ")), not '\(shown(string))'\(hint)"
      )
    }
    return string
  }

  /// A number (integers are accepted), optionally within a closed range.
  public func double(_ key: String, default fallback: Double, range: ClosedRange<Double>? = nil) throws
    -> Double
  {
    guard let value = value(key) else { return fallback }
    let number: Double
    switch value {
    case .float(let v): number = v
    case .integer(let v): number = Double(v)
    default: throw wrongType(key, value, expected: "a number")
    }
    if let range, !range.contains(number) {
      throw error(
        key, "'\(qualified(key))' must be between \(range.lowerBound) and \(range.upperBound), not \(number)")
    }
    return number
  }

  /// A duration in seconds (a number), which must be positive.
  public func seconds(_ key: String, default fallback: Double) throws -> Double {
    try double(key, default: fallback, range: 0.000_001...86_400)
  }

  /// An integer, optionally within a closed range.
  public func int(_ key: String, default fallback: Int, range: ClosedRange<Int>? = nil) throws -> Int {
    guard let value = value(key) else { return fallback }
    guard case .integer(let v) = value else { throw wrongType(key, value, expected: "an integer") }
    if let range, !range.contains(Int(v)) {
      throw error(
        key, "'\(qualified(key))' must be between \(range.lowerBound) and \(range.upperBound), not \(v)")
    }
    return Int(v)
  }

  /// A boolean.
  public func bool(_ key: String, default fallback: Bool) throws -> Bool {
    guard let value = value(key) else { return fallback }
    guard case .boolean(let v) = value else { throw wrongType(key, value, expected: "true or false") }
    return v
  }

  /// An array of strings.
  public func strings(_ key: String, default fallback: [String]) throws -> [String] {
    guard let value = value(key) else { return fallback }
    guard case .array(let elements, _) = value else {
      throw wrongType(key, value, expected: "an array of strings")
    }
    return try elements.map { element in
      guard case .string(let s) = element else {
        throw error(key, "'\(qualified(key))' must be an array of strings, and holds \(element.typeName)")
      }
      return s
    }
  }

  /// A sub-table; an empty one when absent.
  public func section(_ key: String) throws -> ConfigSection {
    guard let value = value(key) else {
      return ConfigSection(
        file: file, path: qualified(key), table: TOML.Table(line: table.line, origin: .implicit))
    }
    guard case .table(let child) = value else { throw wrongType(key, value, expected: "a table") }
    return ConfigSection(file: file, path: qualified(key), table: child)
  }

  /// An array of tables (`[[key]]`); empty when absent.
  public func sections(_ key: String) throws -> [ConfigSection] {
    guard let value = value(key) else { return [] }
    guard case .array(let elements, _) = value else {
      throw wrongType(key, value, expected: "an array of tables")
    }
    return try elements.enumerated().map { index, element in
      guard case .table(let child) = element else {
        throw error(key, "'\(qualified(key))' must be an array of tables, and holds \(element.typeName)")
      }
      return ConfigSection(file: file, path: "\(qualified(key))[\(index)]", table: child)
    }
  }

  /// Every key of this table with its value, for tables whose keys are data (e.g. event → command).
  /// All of them count as known.
  public func entries() -> [(key: String, value: TOML.Value, line: Int)] {
    table.keys.map { key in
      known.append(key)
      return (key, table[key]!, table.line(of: key) ?? table.line)
    }
  }

  /// Refuses the keys that were not read: `FILE:LINE: unknown key 'x' in [section] (did you mean 'y'?)`.
  public func finish() throws {
    for key in table.keys where !known.contains(key) {
      let hint = suggestion(for: key, among: known).map { " (did you mean '\($0)'?)" } ?? ""
      let place = path.isEmpty ? "" : " in [\(path)]"
      throw error(key, "unknown key '\(shown(key))'\(place)\(hint)")
    }
  }
}

/// The longest text an error message quotes whole (a key, a name, a value); longer ones are
/// shortened by `shown(_:)`.
let longestQuoted = 80

/// `text` as an error message quotes it: whole up to `longestQuoted` characters, else its start
/// and its length ("aaaa… (50000000 characters)"), so that a huge key costs one short line.
func shown(_ text: some StringProtocol) -> String {
  var count = 0
  var end = text.startIndex
  for index in text.indices {
    if count == longestQuoted - 20 { end = index }
    count += 1
    if count > longestQuoted { break }
  }
  guard count > longestQuoted else { return String(text) }
  return "\(text[..<end])… (\(text.count) characters)"
}

/// The closest word to `word` among `candidates` when it is close enough to be a typo. A typo is
/// at most 3 edits away, so only candidates within 3 characters of its length are measured, and
/// a word longer than any candidate by more than that costs nothing (a 50 MB key took 13 s).
public func suggestion(for word: String, among candidates: [String]) -> String? {
  let near = suggestionCandidates(for: word, among: candidates)
  guard !near.isEmpty else { return nil }
  let lowercasedWord = word.lowercased()
  let scored = near.map { ($0, editDistance(lowercasedWord, $0.lowercased())) }
  guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
  let limit = best.0.count <= 3 ? 1 : max(2, min(3, best.0.count / 3))
  return best.1 <= limit ? best.0 : nil
}

/// The candidates whose distance to `word` `suggestion` measures: those within 3 characters of
/// its length (the distance is at least the difference of the lengths).
func suggestionCandidates(for word: String, among candidates: [String]) -> [String] {
  let length = word.utf8.count
  return candidates.filter { abs($0.utf8.count - length) <= 3 }
}

/// Levenshtein distance between two strings.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      current[j] = Swift.min(
        previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    swap(&previous, &current)
  }
  return previous[b.count]
}
