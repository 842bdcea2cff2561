internal import CDBus

/// A D-Bus error: a dotted error name (`org.freedesktop.DBus.Error.UnknownMethod`) and a message.
///
/// Errors received in replies, errors thrown by exported methods (sent back as error replies) and
/// local failures (invalid names, a closed connection, a deadline) all use this type.
public struct DBusError: Error, Equatable, Hashable, CustomStringConvertible, Sendable {
  /// The D-Bus error name.
  public var name: String
  /// The human-readable message.
  public var message: String

  public init(_ name: String, _ message: String) {
    self.name = name
    self.message = message
  }

  public init(name: String, message: String) {
    self.init(name, message)
  }

  public var description: String { message.isEmpty ? name : "\(name): \(message)" }

  /// Reads and frees a libdbus error (returns nil when it is not set).
  init?(consuming error: inout CDBus.DBusError) {
    guard dbus_error_is_set(&error) != 0 else { return nil }
    let name = error.name.map { String(cString: $0) } ?? DBusError.Name.failed
    let message = error.message.map { String(cString: $0) } ?? ""
    dbus_error_free(&error)
    self.init(name, message)
  }

  /// Standard error names.
  public enum Name {
    public static let failed = "org.freedesktop.DBus.Error.Failed"
    public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let timeout = "org.freedesktop.DBus.Error.Timeout"
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    public static let noServer = "org.freedesktop.DBus.Error.NoServer"
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
  }

  public static func failed(_ message: String) -> DBusError { DBusError(Name.failed, message) }
  public static func invalidArgs(_ message: String) -> DBusError { DBusError(Name.invalidArgs, message) }
  public static func disconnected(_ message: String = "not connected to the bus") -> DBusError {
    DBusError(Name.disconnected, message)
  }
  static let noMemory = DBusError(Name.noMemory, "out of memory in libdbus")
}

/// Runs a libdbus call that reports through a DBusError out-parameter and throws what it reports.
func withDBusError<T>(_ body: (UnsafeMutablePointer<CDBus.DBusError>) -> T) throws(DBusError) -> T {
  var error = cdbus_error_init()
  let result = body(&error)
  if let failure = DBusError(consuming: &error) { throw failure }
  return result
}
