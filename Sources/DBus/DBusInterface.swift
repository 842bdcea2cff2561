/// A method of an exported interface.
public struct DBusMethod {
  public let name: String
  /// The signature the arguments must have (checked before the handler runs).
  public let inSignature: String
  /// The signature of the reply.
  public let outSignature: String
  /// Argument names for introspection (optional).
  public var inNames: [String]
  public var outNames: [String]
  /// Documentation, published as an `org.gtk.GDBus.DocString` annotation.
  public var doc: String?
  let handler: (DBusMethodCall) -> Void

  /// A method answered by the returned values, or by the `DBusError` thrown (another error
  /// becomes `…Error.Failed` with its description).
  /// `DBusMethod("Echo", in: "v", out: "v") { call in call.arguments }`
  public init(
    _ name: String, in inSignature: String = "", out outSignature: String = "", inNames: [String] = [],
    outNames: [String] = [], handler: @escaping (DBusMethodCall) throws -> [DBusValue]
  ) {
    self.name = name
    self.inSignature = inSignature
    self.outSignature = outSignature
    self.inNames = inNames
    self.outNames = outNames
    self.handler = { call in
      do {
        call.reply(try handler(call))
      } catch let error as DBusError {
        call.reply(error: error)
      } catch {
        call.reply(error: DBusError.failed("\(error)"))
      }
    }
  }

  private init(
    name: String, inSignature: String, outSignature: String, inNames: [String], outNames: [String],
    handler: @escaping (DBusMethodCall) -> Void
  ) {
    self.name = name
    self.inSignature = inSignature
    self.outSignature = outSignature
    self.inNames = inNames
    self.outNames = outNames
    self.handler = handler
  }

  /// A method whose handler replies through the call when it is ready (now or later).
  /// `.replyLater("Ask", in: "s", out: "b") { call in ask(app) { call.reply([.bool($0)]) } }`
  public static func replyLater(
    _ name: String, in inSignature: String = "", out outSignature: String = "", inNames: [String] = [],
    outNames: [String] = [], handler: @escaping (DBusMethodCall) -> Void
  ) -> DBusMethod {
    DBusMethod(
      name: name, inSignature: inSignature, outSignature: outSignature, inNames: inNames, outNames: outNames,
      handler: handler)
  }
}

/// A property of an exported interface.
public struct DBusProperty {
  public enum Access: String, Sendable {
    case read
    case write
    case readWrite = "readwrite"
  }

  /// What the object does when the value changes (the `EmitsChangedSignal` annotation).
  public enum ChangeSignal: String, Sendable {
    /// PropertiesChanged carries the new value.
    case emits = "true"
    /// PropertiesChanged lists the name without the value.
    case invalidates = "invalidates"
    /// The value never changes.
    case constant = "const"
    /// No signal.
    case none = "false"
  }

  public let name: String
  /// The type of the value (one complete type).
  public let signature: String
  public let changeSignal: ChangeSignal
  /// Documentation, published as an `org.gtk.GDBus.DocString` annotation.
  public var doc: String?
  let get: (() -> DBusValue)?
  let set: ((DBusValue) throws -> Void)?

  public var access: Access {
    switch (get != nil, set != nil) {
    case (true, true): return .readWrite
    case (false, true): return .write
    default: return .read
    }
  }

  /// A property with an explicit signature. The getter must return values of that signature;
  /// the setter gets values already checked against it (throw a `DBusError` to refuse).
  public init(
    _ name: String, signature: String, changeSignal: ChangeSignal = .emits, get: (() -> DBusValue)?,
    set: ((DBusValue) throws -> Void)? = nil
  ) {
    self.name = name
    self.signature = signature
    self.changeSignal = changeSignal
    self.get = get
    self.set = set
  }

  /// A typed property: `DBusProperty("Rate", get: { 1.0 })`, `DBusProperty("Volume", get: { v }, set: { v = $0 })`.
  public init<T: DBusConvertible>(
    _ name: String, changeSignal: ChangeSignal = .emits, get: @escaping () -> T,
    set: ((T) throws -> Void)? = nil
  ) {
    self.name = name
    self.signature = T.dbusSignature
    self.changeSignal = changeSignal
    self.get = { get().dbusValue }
    if let set {
      self.set = { value in
        guard let typed = T(dbusValue: value) else {
          throw DBusError.invalidArgs("property \(name) expects type '\(T.dbusSignature)'")
        }
        try set(typed)
      }
    } else {
      self.set = nil
    }
  }
}

/// A signal of an exported interface (for introspection; emit with `DBusExportedObject.emit`).
public struct DBusSignalInfo: Sendable {
  public let name: String
  public let signature: String
  public var argumentNames: [String]
  /// Documentation, published as an `org.gtk.GDBus.DocString` annotation.
  public var doc: String?
  public init(_ name: String, signature: String = "", argumentNames: [String] = []) {
    self.name = name
    self.signature = signature
    self.argumentNames = argumentNames
  }
}

/// An interface described in Swift: methods, properties and signals.
public struct DBusInterface {
  public let name: String
  public var methods: [DBusMethod]
  public var properties: [DBusProperty]
  public var signals: [DBusSignalInfo]
  /// Documentation, published as an `org.gtk.GDBus.DocString` annotation.
  public var doc: String?

  public init(
    _ name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [],
    signals: [DBusSignalInfo] = []
  ) {
    self.name = name
    self.methods = methods
    self.properties = properties
    self.signals = signals
  }

  public func method(_ name: String) -> DBusMethod? { methods.first { $0.name == name } }
  public func property(_ name: String) -> DBusProperty? { properties.first { $0.name == name } }

  func validate() throws(DBusError) {
    try DBusNames.validateInterface(name)
    for method in methods {
      try DBusNames.validateMember(method.name)
      guard DBusSignature.isValid(method.inSignature), DBusSignature.isValid(method.outSignature) else {
        throw .invalidArgs("method \(name).\(method.name) has an invalid signature")
      }
    }
    for property in properties {
      try DBusNames.validateMember(property.name)
      guard DBusSignature.isSingleCompleteType(property.signature) else {
        throw .invalidArgs(
          "property \(name).\(property.name) has an invalid signature '\(property.signature)'")
      }
    }
    for signal in signals {
      try DBusNames.validateMember(signal.name)
      guard DBusSignature.isValid(signal.signature) else {
        throw .invalidArgs("signal \(name).\(signal.name) has an invalid signature '\(signal.signature)'")
      }
    }
  }
}
