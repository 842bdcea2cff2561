internal import CDBus

/// A D-Bus value with its type: what a message carries, one value per argument.
///
/// Containers carry their element types so that empty arrays and dicts keep a signature:
/// `.array(elementSignature: "s", [])` is `as`. In typed Swift conversions (`DBusConvertible`)
/// a `DBusValue` stands for a variant, so `[String: DBusValue]` is `a{sv}`.
public enum DBusValue: Sendable {
  case byte(UInt8)
  case bool(Bool)
  case int16(Int16)
  case uint16(UInt16)
  case int32(Int32)
  case uint32(UInt32)
  case int64(Int64)
  case uint64(UInt64)
  case double(Double)
  case string(String)
  case objectPath(String)
  case signature(String)
  /// A file descriptor. Read from a message it is a new descriptor the reader owns (close it);
  /// appended to a message it is duplicated, so the caller keeps its own.
  case unixFD(Int32)
  /// An array of values all of `elementSignature` (a single complete type).
  indirect case array(elementSignature: String, [DBusValue])
  /// A dict (`a{kv}`): keys of a basic type, values of `valueSignature`, in wire order.
  indirect case dict(keySignature: String, valueSignature: String, [(key: DBusValue, value: DBusValue)])
  /// A value with its type carried alongside (`v`).
  indirect case variant(DBusValue)
  /// A struct of one or more fields (`(…)`).
  indirect case structure([DBusValue])

  /// The D-Bus type signature of this value (one complete type).
  public var signature: String {
    switch self {
    case .byte: return "y"
    case .bool: return "b"
    case .int16: return "n"
    case .uint16: return "q"
    case .int32: return "i"
    case .uint32: return "u"
    case .int64: return "x"
    case .uint64: return "t"
    case .double: return "d"
    case .string: return "s"
    case .objectPath: return "o"
    case .signature: return "g"
    case .unixFD: return "h"
    case .array(let element, _): return "a" + element
    case .dict(let key, let value, _): return "a{" + key + value + "}"
    case .variant: return "v"
    case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
    }
  }

  /// The value inside any number of variants (`self` when it is not a variant).
  public var unwrapped: DBusValue {
    if case .variant(let inner) = self { return inner.unwrapped }
    return self
  }
}

extension Array where Element == DBusValue {
  /// The signature of these values as message arguments (the concatenation of theirs).
  public var signature: String { map(\.signature).joined() }
}

extension DBusValue: Equatable, Hashable {
  public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
    switch (lhs, rhs) {
    case (.byte(let a), .byte(let b)): return a == b
    case (.bool(let a), .bool(let b)): return a == b
    case (.int16(let a), .int16(let b)): return a == b
    case (.uint16(let a), .uint16(let b)): return a == b
    case (.int32(let a), .int32(let b)): return a == b
    case (.uint32(let a), .uint32(let b)): return a == b
    case (.int64(let a), .int64(let b)): return a == b
    case (.uint64(let a), .uint64(let b)): return a == b
    case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
    case (.string(let a), .string(let b)): return a == b
    case (.objectPath(let a), .objectPath(let b)): return a == b
    case (.signature(let a), .signature(let b)): return a == b
    case (.unixFD(let a), .unixFD(let b)): return a == b
    case (.array(let s1, let a), .array(let s2, let b)): return s1 == s2 && a == b
    case (.dict(let k1, let v1, let a), .dict(let k2, let v2, let b)):
      return k1 == k2 && v1 == v2 && a.count == b.count
        && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    case (.variant(let a), .variant(let b)): return a == b
    case (.structure(let a), .structure(let b)): return a == b
    default: return false
    }
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(signature)
    switch self {
    case .byte(let v): hasher.combine(v)
    case .bool(let v): hasher.combine(v)
    case .int16(let v): hasher.combine(v)
    case .uint16(let v): hasher.combine(v)
    case .int32(let v): hasher.combine(v)
    case .uint32(let v): hasher.combine(v)
    case .int64(let v): hasher.combine(v)
    case .uint64(let v): hasher.combine(v)
    case .double(let v): hasher.combine(v.isNaN ? .nan : v)
    case .string(let v), .objectPath(let v), .signature(let v): hasher.combine(v)
    case .unixFD(let v): hasher.combine(v)
    case .array(_, let values), .structure(let values): hasher.combine(values)
    case .dict(_, _, let entries):
      for entry in entries {
        hasher.combine(entry.key)
        hasher.combine(entry.value)
      }
    case .variant(let inner): hasher.combine(inner)
    }
  }
}

extension DBusValue: CustomStringConvertible {
  /// A compact, GVariant-like text form for logs and test failures.
  public var description: String {
    switch self {
    case .byte(let v): return "byte \(v)"
    case .bool(let v): return v ? "true" : "false"
    case .int16(let v): return "int16 \(v)"
    case .uint16(let v): return "uint16 \(v)"
    case .int32(let v): return "\(v)"
    case .uint32(let v): return "uint32 \(v)"
    case .int64(let v): return "int64 \(v)"
    case .uint64(let v): return "uint64 \(v)"
    case .double(let v): return "\(v)"
    case .string(let v): return quoted(v)
    case .objectPath(let v): return "objectpath \(quoted(v))"
    case .signature(let v): return "signature \(quoted(v))"
    case .unixFD(let v): return "handle \(v)"
    case .array(let element, let values):
      return values.isEmpty
        ? "@a\(element) []" : "[" + values.map(\.description).joined(separator: ", ") + "]"
    case .dict(let key, let value, let entries):
      if entries.isEmpty { return "@a{\(key)\(value)} {}" }
      return "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    case .variant(let inner): return "<\(inner)>"
    case .structure(let fields): return "(" + fields.map(\.description).joined(separator: ", ") + ")"
    }
  }

  private func quoted(_ text: String) -> String {
    "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
  }
}

extension DBusValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension String {
  func replacingAll(_ target: Character, with replacement: String) -> String {
    guard contains(target) else { return self }
    var result = ""
    for character in self {
      if character == target { result += replacement } else { result.append(character) }
    }
    return result
  }
}

// MARK: - Signatures

/// Helpers for D-Bus type signatures.
public enum DBusSignature {
  /// Splits a signature into its complete types (`"sa{sv}(ii)"` → `["s", "a{sv}", "(ii)"]`);
  /// nil when it is not a well-formed signature.
  public static func split(_ signature: String) -> [String]? {
    let bytes = Array(signature.utf8)
    var types: [String] = []
    var index = 0
    while index < bytes.count {
      guard let end = endOfCompleteType(bytes, from: index, depth: 0) else { return nil }
      types.append(String(decoding: bytes[index..<end], as: UTF8.self))
      index = end
    }
    return types
  }

  /// Whether `signature` is a valid sequence of complete types (at most 255 bytes, nesting ≤ 32).
  public static func isValid(_ signature: String) -> Bool {
    signature.utf8.count <= 255 && split(signature) != nil
  }

  /// Whether `signature` is exactly one complete type.
  public static func isSingleCompleteType(_ signature: String) -> Bool {
    guard let types = split(signature), signature.utf8.count <= 255 else { return false }
    return types.count == 1
  }

  /// Whether `code` (one character) is a basic type, the only kind allowed as a dict key.
  public static func isBasic(_ signature: String) -> Bool {
    signature.utf8.count == 1 && basicCodes.contains(signature.utf8.first!)
  }

  private static let basicCodes = Set("ybnqiuxtdsogh".utf8)

  /// The index after the complete type starting at `start`.
  private static func endOfCompleteType(_ bytes: [UInt8], from start: Int, depth: Int) -> Int? {
    guard start < bytes.count, depth <= 32 else { return nil }
    let code = bytes[start]
    if basicCodes.contains(code) || code == UInt8(ascii: "v") { return start + 1 }
    switch code {
    case UInt8(ascii: "a"):
      let next = start + 1
      guard next < bytes.count else { return nil }
      if bytes[next] == UInt8(ascii: "{") {
        // Dict entry: a basic key and one complete value type, then '}'.
        let key = next + 1
        guard key < bytes.count, basicCodes.contains(bytes[key]) else { return nil }
        guard let valueEnd = endOfCompleteType(bytes, from: key + 1, depth: depth + 2),
          valueEnd < bytes.count, bytes[valueEnd] == UInt8(ascii: "}")
        else { return nil }
        return valueEnd + 1
      }
      return endOfCompleteType(bytes, from: next, depth: depth + 1)
    case UInt8(ascii: "("):
      var index = start + 1
      var fields = 0
      while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
        guard let end = endOfCompleteType(bytes, from: index, depth: depth + 1) else { return nil }
        index = end
        fields += 1
      }
      guard index < bytes.count, fields > 0 else { return nil }
      return index + 1
    default:
      return nil
    }
  }
}

// MARK: - Validation (libdbus aborts the process on invalid input, so check first)

extension DBusValue {
  /// Checks that this value can be marshalled: valid object paths and signatures, container
  /// elements matching their declared types, non-empty structs, basic dict keys.
  public func validate() throws(DBusError) {
    switch self {
    case .byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .unixFD:
      return
    case .string(let text):
      if text.utf8.contains(0) { throw .invalidArgs("string contains a NUL byte") }
    case .objectPath(let path):
      try DBusNames.validatePath(path)
    case .signature(let signature):
      guard DBusSignature.isValid(signature) else { throw .invalidArgs("invalid signature '\(signature)'") }
    case .array(let element, let values):
      guard DBusSignature.isSingleCompleteType(element) else {
        throw .invalidArgs("invalid array element signature '\(element)'")
      }
      for value in values {
        guard value.signature == element else {
          throw .invalidArgs("array of '\(element)' holds a '\(value.signature)' value")
        }
        try value.validate()
      }
    case .dict(let key, let valueSignature, let entries):
      guard DBusSignature.isBasic(key) else { throw .invalidArgs("dict key signature '\(key)' is not basic") }
      guard DBusSignature.isSingleCompleteType(valueSignature) else {
        throw .invalidArgs("invalid dict value signature '\(valueSignature)'")
      }
      for entry in entries {
        guard entry.key.signature == key, entry.value.signature == valueSignature else {
          throw .invalidArgs(
            "dict a{\(key)\(valueSignature)} holds a {\(entry.key.signature)\(entry.value.signature)} entry")
        }
        try entry.key.validate()
        try entry.value.validate()
      }
    case .variant(let inner):
      try inner.validate()
    case .structure(let fields):
      guard !fields.isEmpty else { throw .invalidArgs("empty struct") }
      for field in fields { try field.validate() }
    }
    if signature.utf8.count > 255 { throw .invalidArgs("signature longer than 255 bytes") }
  }
}

/// Validation of bus names, object paths, interface and member names.
public enum DBusNames {
  public static func validatePath(_ path: String) throws(DBusError) {
    try check(path, "object path") { dbus_validate_path($0, $1) }
  }
  public static func validateInterface(_ name: String) throws(DBusError) {
    try check(name, "interface name") { dbus_validate_interface($0, $1) }
  }
  public static func validateMember(_ name: String) throws(DBusError) {
    try check(name, "member name") { dbus_validate_member($0, $1) }
  }
  public static func validateErrorName(_ name: String) throws(DBusError) {
    try check(name, "error name") { dbus_validate_error_name($0, $1) }
  }
  public static func validateBusName(_ name: String) throws(DBusError) {
    try check(name, "bus name") { dbus_validate_bus_name($0, $1) }
  }

  private static func check(
    _ text: String, _ what: String,
    _ validator: (UnsafePointer<CChar>, UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t
  ) throws(DBusError) {
    if text.utf8.contains(0) { throw .invalidArgs("invalid \(what) '\(text)'") }
    var error = cdbus_error_init()
    let ok = text.withCString { validator($0, &error) }
    if ok == 0 {
      let detail = DBusError(consuming: &error)?.message ?? ""
      throw .invalidArgs("invalid \(what) '\(text)'" + (detail.isEmpty ? "" : ": \(detail)"))
    }
  }
}
