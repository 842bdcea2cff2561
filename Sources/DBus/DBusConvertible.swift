/// A Swift type with a D-Bus type: converts to a `DBusValue` and back.
///
/// Conversions from D-Bus are lenient where it helps with real peers: variants are looked
/// through, integers convert between widths when the value fits, and `Double` accepts integers.
public protocol DBusConvertible {
  /// The D-Bus signature of values of this type (one complete type).
  static var dbusSignature: String { get }
  /// This value as a D-Bus value.
  var dbusValue: DBusValue { get }
  /// The Swift value, or nil when `dbusValue` does not hold one of this type.
  init?(dbusValue: DBusValue)
}

extension DBusValue {
  /// Wraps a Swift value (`DBusValue("x")`, `DBusValue(["a", "b"])`, `DBusValue(["k": .int32(1)])`).
  public init<T: DBusConvertible>(_ value: T) { self = value.dbusValue }

  /// This value converted to `type`, or nil when it holds something else.
  public func `as`<T: DBusConvertible>(_ type: T.Type) -> T? { T(dbusValue: self) }

  /// The string inside (also for object paths and signatures), looking through variants.
  public var string: String? {
    switch unwrapped {
    case .string(let text), .objectPath(let text), .signature(let text): return text
    default: return nil
    }
  }
  public var bool: Bool? { Bool(dbusValue: self) }
  public var int64: Int64? { Int64(dbusValue: self) }
  public var int32: Int32? { Int32(dbusValue: self) }
  public var uint32: UInt32? { UInt32(dbusValue: self) }
  public var double: Double? { Double(dbusValue: self) }
  public var objectPath: String? { DBusObjectPath(dbusValue: self)?.rawValue }
  public var stringArray: [String]? { [String](dbusValue: self) }
  /// An `a{sv}` dict as a Swift dictionary (values with their variant removed).
  public var dictionary: [String: DBusValue]? { [String: DBusValue](dbusValue: self) }
  /// The elements of an array, or the fields of a struct.
  public var elements: [DBusValue]? {
    switch unwrapped {
    case .array(_, let values), .structure(let values): return values
    default: return nil
    }
  }

  /// An `a{sv}` dict from a Swift dictionary, keys sorted so the output is stable.
  public static func vardict(_ entries: [String: DBusValue]) -> DBusValue { entries.dbusValue }
}

/// An object path, as a distinct Swift type (`o` rather than `s`).
public struct DBusObjectPath: DBusConvertible, Hashable, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  public let rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public static var dbusSignature: String { "o" }
  public var dbusValue: DBusValue { .objectPath(rawValue) }
  public init?(dbusValue: DBusValue) {
    guard case .objectPath(let path) = dbusValue.unwrapped else { return nil }
    rawValue = path
  }
  public var description: String { rawValue }
}

extension DBusValue: DBusConvertible {
  /// In typed conversions a `DBusValue` is a variant.
  public static var dbusSignature: String { "v" }
  public var dbusValue: DBusValue { .variant(self) }
  public init?(dbusValue: DBusValue) { self = dbusValue.unwrapped }
}

extension String: DBusConvertible {
  public static var dbusSignature: String { "s" }
  public var dbusValue: DBusValue { .string(self) }
  public init?(dbusValue: DBusValue) {
    guard case .string(let text) = dbusValue.unwrapped else { return nil }
    self = text
  }
}

extension Bool: DBusConvertible {
  public static var dbusSignature: String { "b" }
  public var dbusValue: DBusValue { .bool(self) }
  public init?(dbusValue: DBusValue) {
    guard case .bool(let value) = dbusValue.unwrapped else { return nil }
    self = value
  }
}

extension Double: DBusConvertible {
  public static var dbusSignature: String { "d" }
  public var dbusValue: DBusValue { .double(self) }
  public init?(dbusValue: DBusValue) {
    let value = dbusValue.unwrapped
    if case .double(let number) = value {
      self = number
    } else if let integer = value.integerValue {
      self = Double(integer)
    } else {
      return nil
    }
  }
}

extension DBusValue {
  /// Any integer type, widened (UInt64 values above Int64.max are not representable: nil).
  fileprivate var integerValue: Int64? {
    switch self {
    case .byte(let v): return Int64(v)
    case .int16(let v): return Int64(v)
    case .uint16(let v): return Int64(v)
    case .int32(let v): return Int64(v)
    case .uint32(let v): return Int64(v)
    case .int64(let v): return v
    case .uint64(let v): return Int64(exactly: v)
    default: return nil
    }
  }
}

/// Integer conversions shared by every width: a width names only the `DBusValue` case it is
/// sent as, and that case's signature is its signature.
private protocol DBusInteger: FixedWidthInteger, DBusConvertible {}

extension DBusInteger {
  public static var dbusSignature: String { Self.zero.dbusValue.signature }

  public init?(dbusValue: DBusValue) {
    let value = dbusValue.unwrapped
    if case .uint64(let big) = value {
      self.init(exactly: big)
    } else {
      guard let integer = value.integerValue else { return nil }
      self.init(exactly: integer)
    }
  }
}

extension UInt8: DBusConvertible, DBusInteger { public var dbusValue: DBusValue { .byte(self) } }
extension Int16: DBusConvertible, DBusInteger { public var dbusValue: DBusValue { .int16(self) } }
extension UInt16: DBusConvertible, DBusInteger { public var dbusValue: DBusValue { .uint16(self) } }
extension Int32: DBusConvertible, DBusInteger { public var dbusValue: DBusValue { .int32(self) } }
extension UInt32: DBusConvertible, DBusInteger { public var dbusValue: DBusValue { .uint32(self) } }
extension Int64: DBusConvertible, DBusInteger { public var dbusValue: DBusValue { .int64(self) } }
extension UInt64: DBusConvertible, DBusInteger { public var dbusValue: DBusValue { .uint64(self) } }

extension Array: DBusConvertible where Element: DBusConvertible {
  public static var dbusSignature: String { "a" + Element.dbusSignature }
  // A closure, not a key path: a generic key path is instantiated at run time on every call.
  public var dbusValue: DBusValue { .array(elementSignature: Element.dbusSignature, map { $0.dbusValue }) }
  public init?(dbusValue: DBusValue) {
    guard case .array(_, let values) = dbusValue.unwrapped else { return nil }
    var result: [Element] = []
    result.reserveCapacity(values.count)
    for value in values {
      guard let element = Element(dbusValue: value) else { return nil }
      result.append(element)
    }
    self = result
  }
}

extension Dictionary: DBusConvertible where Key: DBusConvertible & Comparable, Value: DBusConvertible {
  public static var dbusSignature: String { "a{" + Key.dbusSignature + Value.dbusSignature + "}" }
  /// Entries sorted by key, so that the same dictionary always gives the same message.
  public var dbusValue: DBusValue {
    .dict(
      keySignature: Key.dbusSignature, valueSignature: Value.dbusSignature,
      sorted { $0.key < $1.key }.map { (key: $0.key.dbusValue, value: $0.value.dbusValue) })
  }
  public init?(dbusValue: DBusValue) {
    guard case .dict(_, _, let entries) = dbusValue.unwrapped else { return nil }
    var result: [Key: Value] = [:]
    result.reserveCapacity(entries.count)
    for entry in entries {
      guard let key = Key(dbusValue: entry.key), let value = Value(dbusValue: entry.value) else { return nil }
      result[key] = value
    }
    self = result
  }
}

extension Array where Element == DBusValue {
  /// The argument at `index` as `T`; throws `InvalidArgs` naming the index and expected type.
  /// `let name: String = try call.arguments.value(at: 0)`
  public func value<T: DBusConvertible>(at index: Int, as type: T.Type = T.self) throws(DBusError) -> T {
    guard index < count else {
      throw .invalidArgs("argument \(index) is missing (got \(count) arguments)")
    }
    guard let value = T(dbusValue: self[index]) else {
      throw .invalidArgs("argument \(index) is '\(self[index].signature)', expected '\(T.dbusSignature)'")
    }
    return value
  }
}
