/// An incoming method call on an exported object. Reply exactly once, now or later (the loop
/// goes on meanwhile); a call dropped without a reply is answered with `…Error.Failed`.
public final class DBusMethodCall {
  public let message: DBusMessage
  /// The declared out signature the reply must have.
  public let outSignature: String
  private weak var connection: DBusConnection?
  private let generation: Int
  public private(set) var hasReplied = false

  init(message: DBusMessage, outSignature: String, connection: DBusConnection) {
    self.message = message
    self.outSignature = outSignature
    self.connection = connection
    self.generation = connection.generation
  }

  deinit {
    if !hasReplied {
      reply(error: DBusError.failed("\(qualifiedMember) returned no reply"))
    }
  }

  public var arguments: [DBusValue] { message.arguments }
  /// The caller's unique name.
  public var sender: String { message.sender ?? "" }
  public var path: String { message.path ?? "" }
  public var interface: String? { message.interface }
  public var member: String { message.member ?? "" }
  var qualifiedMember: String { [interface, member].compactMap { $0 }.joined(separator: ".") }

  /// Replies with `values`, which must match the declared out signature.
  public func reply(_ values: [DBusValue] = []) {
    guard values.signature == outSignature else {
      reply(
        error: DBusError.failed(
          "\(qualifiedMember) produced a reply of signature '\(values.signature)' instead of '\(outSignature)'"
        ))
      return
    }
    do {
      try send(message.makeReply(values))
    } catch {
      reply(error: error)
    }
  }

  /// Replies with an error.
  public func reply(error: DBusError) {
    try? send(message.makeError(error))
  }

  /// Replies with a result.
  public func reply(_ result: Result<[DBusValue], DBusError>) {
    switch result {
    case .success(let values): reply(values)
    case .failure(let error): reply(error: error)
    }
  }

  private func send(_ reply: DBusMessage) throws(DBusError) {
    guard !hasReplied else { return }
    hasReplied = true
    // No reply wanted, or the bus was lost since the call came: nobody is waiting.
    guard !message.noReplyExpected, let connection, connection.generation == generation else { return }
    try connection.send(reply)
  }
}

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

/// An object exported on a connection (kept across reconnections until `unexport()`).
public final class DBusExportedObject {
  public let path: String
  public private(set) var interfaces: [DBusInterface]
  weak var connection: DBusConnection?

  init(path: String, interfaces: [DBusInterface], connection: DBusConnection) {
    self.path = path
    self.interfaces = interfaces
    self.connection = connection
  }

  public func interface(_ name: String) -> DBusInterface? { interfaces.first { $0.name == name } }

  /// Adds or replaces an interface.
  public func add(_ interface: DBusInterface) throws(DBusError) {
    try interface.validate()
    interfaces.removeAll { $0.name == interface.name }
    interfaces.append(interface)
  }

  /// Removes an interface.
  public func remove(interface name: String) { interfaces.removeAll { $0.name == name } }

  /// Stops answering calls on this path.
  public func unexport() {
    guard let connection, connection.objects[path] === self else { return }
    connection.objects[path] = nil
  }

  /// Emits `interface.name` from this object.
  public func emit(interface: String, signal name: String, arguments: [DBusValue] = []) throws(DBusError) {
    guard let connection else { throw DBusError.disconnected() }
    try connection.emitSignal(path: path, interface: interface, name: name, arguments: arguments)
  }

  /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` with the given values.
  public func emitPropertiesChanged(
    interface: String, changed: [String: DBusValue], invalidated: [String] = []
  )
    throws(DBusError)
  {
    try emit(
      interface: "org.freedesktop.DBus.Properties", signal: "PropertiesChanged",
      arguments: [.string(interface), .vardict(changed), invalidated.dbusValue])
  }

  /// Emits PropertiesChanged for `names`, reading the getters: values for `.emits` properties,
  /// names only for `.invalidates`, nothing for the others. Does nothing when nothing is left.
  public func propertiesChanged(interface name: String, _ names: [String]) throws(DBusError) {
    guard let interface = interface(name) else {
      throw DBusError(DBusError.Name.unknownInterface, "no interface \(name) on \(path)")
    }
    var changed: [String: DBusValue] = [:]
    var invalidated: [String] = []
    for propertyName in names {
      guard let property = interface.property(propertyName) else {
        throw DBusError(DBusError.Name.unknownProperty, "no property \(propertyName) in \(name)")
      }
      switch property.changeSignal {
      case .emits:
        if let get = property.get { changed[propertyName] = get() } else { invalidated.append(propertyName) }
      case .invalidates: invalidated.append(propertyName)
      case .constant, .none: break
      }
    }
    guard !changed.isEmpty || !invalidated.isEmpty else { return }
    try emitPropertiesChanged(interface: name, changed: changed, invalidated: invalidated)
  }
}

extension DBusConnection {
  /// Exports an object at `path` implementing `interfaces`; Introspectable, Properties and Peer
  /// are provided. Throws for an invalid description or a path already exported.
  @discardableResult
  public func export(path: String, interfaces: [DBusInterface]) throws(DBusError) -> DBusExportedObject {
    try DBusNames.validatePath(path)
    for interface in interfaces { try interface.validate() }
    guard objects[path] == nil else { throw DBusError.failed("an object is already exported at \(path)") }
    let object = DBusExportedObject(path: path, interfaces: interfaces, connection: self)
    objects[path] = object
    return object
  }

  /// The object exported at `path`, if any.
  public func exportedObject(at path: String) -> DBusExportedObject? { objects[path] }

  func handleMethodCall(_ message: DBusMessage) {
    let path = message.path ?? "/"
    let member = message.member ?? ""
    let interfaceName = message.interface
    guard let object = objects[path] else {
      if interfaceName ?? DBusIntrospection.interface == DBusIntrospection.interface, member == "Introspect",
        !childNames(of: path).isEmpty
      {
        answer(message, [.string(DBusIntrospection.xml(for: nil, children: childNames(of: path)))])
      } else {
        answer(message, error: DBusError(DBusError.Name.unknownObject, "no object at path \(path)"))
      }
      return
    }
    switch interfaceName {
    case DBusIntrospection.interface:
      guard member == "Introspect" else { return unknownMethod(message) }
      guard message.signature.isEmpty else { return wrongArguments(message, expected: "") }
      answer(message, [.string(DBusIntrospection.xml(for: object, children: childNames(of: path)))])
    case DBusIntrospection.propertiesInterface:
      handlePropertiesCall(message, object: object)
    case nil:
      // No interface: look the member up in every interface, the standard ones first.
      if member == "Introspect" && message.signature.isEmpty {
        answer(message, [.string(DBusIntrospection.xml(for: object, children: childNames(of: path)))])
      } else if ["Get", "GetAll", "Set"].contains(member) {
        handlePropertiesCall(message, object: object)
      } else if let method = object.interfaces.lazy.compactMap({ $0.method(member) }).first {
        invoke(method, message)
      } else {
        unknownMethod(message)
      }
    case let name?:
      guard let interface = object.interface(name) else {
        answer(
          message, error: DBusError(DBusError.Name.unknownInterface, "no interface \(name) on object \(path)")
        )
        return
      }
      guard let method = interface.method(member) else { return unknownMethod(message) }
      invoke(method, message)
    }
  }

  private func invoke(_ method: DBusMethod, _ message: DBusMessage) {
    guard message.signature == method.inSignature else {
      return wrongArguments(message, expected: method.inSignature)
    }
    method.handler(DBusMethodCall(message: message, outSignature: method.outSignature, connection: self))
  }

  private func handlePropertiesCall(_ message: DBusMessage, object: DBusExportedObject) {
    let arguments = message.arguments
    func lookup(_ interfaceName: String) -> DBusInterface? {
      guard let interface = object.interface(interfaceName) else {
        if DBusIntrospection.standardInterfaces.contains(interfaceName) {
          return DBusInterface(interfaceName)
        }
        answer(
          message,
          error: DBusError(
            DBusError.Name.unknownInterface, "no interface \(interfaceName) on object \(object.path)"))
        return nil
      }
      return interface
    }
    func property(_ interface: DBusInterface, _ name: String) -> DBusProperty? {
      guard let property = interface.property(name) else {
        answer(
          message,
          error: DBusError(
            DBusError.Name.unknownProperty, "no property \(name) in interface \(interface.name)"))
        return nil
      }
      return property
    }
    func read(_ property: DBusProperty, _ get: () -> DBusValue, in interface: DBusInterface) -> DBusValue? {
      let value = get()
      guard value.signature == property.signature else {
        answer(
          message,
          error: DBusError.failed(
            "property \(interface.name).\(property.name) produced '\(value.signature)' instead of '\(property.signature)'"
          ))
        return nil
      }
      return value
    }

    switch message.member {
    case "Get":
      guard message.signature == "ss" else { return wrongArguments(message, expected: "ss") }
      guard let interface = lookup(arguments[0].string ?? ""),
        let property = property(interface, arguments[1].string ?? "")
      else { return }
      guard let get = property.get else {
        return answer(
          message,
          error: DBusError(
            DBusError.Name.accessDenied, "property \(interface.name).\(property.name) is write-only"))
      }
      guard let value = read(property, get, in: interface) else { return }
      answer(message, [.variant(value)])
    case "GetAll":
      guard message.signature == "s" else { return wrongArguments(message, expected: "s") }
      guard let interface = lookup(arguments[0].string ?? "") else { return }
      var values: [String: DBusValue] = [:]
      for property in interface.properties {
        guard let get = property.get else { continue }
        guard let value = read(property, get, in: interface) else { return }
        values[property.name] = value
      }
      answer(message, [.vardict(values)])
    case "Set":
      guard message.signature == "ssv" else { return wrongArguments(message, expected: "ssv") }
      guard let interface = lookup(arguments[0].string ?? ""),
        let property = property(interface, arguments[1].string ?? "")
      else { return }
      guard let set = property.set else {
        return answer(
          message,
          error: DBusError(
            DBusError.Name.propertyReadOnly, "property \(interface.name).\(property.name) is read-only"))
      }
      guard case .variant(let value) = arguments[2], value.signature == property.signature else {
        let given = arguments[2].unwrapped.signature
        return answer(
          message,
          error: .invalidArgs(
            "property \(interface.name).\(property.name) has type '\(property.signature)', not '\(given)'"))
      }
      do {
        try set(value)
        answer(message, [])
      } catch let error as DBusError {
        answer(message, error: error)
      } catch {
        answer(message, error: DBusError.failed("\(error)"))
      }
    default:
      unknownMethod(message)
    }
  }

  private func unknownMethod(_ message: DBusMessage) {
    let member = message.member ?? ""
    let place = message.interface.map { " in interface \($0)" } ?? ""
    answer(
      message,
      error: DBusError(
        DBusError.Name.unknownMethod,
        "no method \(member)\(place) with signature '\(message.signature)' on object \(message.path ?? "/")"))
  }

  private func wrongArguments(_ message: DBusMessage, expected: String) {
    let member = [message.interface, message.member].compactMap { $0 }.joined(separator: ".")
    answer(
      message,
      error: .invalidArgs(
        "\(member) expects arguments of signature '\(expected)', got '\(message.signature)'"))
  }

  private func answer(_ message: DBusMessage, _ values: [DBusValue]) {
    guard !message.noReplyExpected, let reply = try? message.makeReply(values) else { return }
    try? send(reply)
  }

  private func answer(_ message: DBusMessage, error: DBusError) {
    guard !message.noReplyExpected else { return }
    try? send(message.makeError(error))
  }

  /// The names of the nodes directly below `path` that lead to exported objects.
  func childNames(of path: String) -> [String] {
    let prefix = path == "/" ? "/" : path + "/"
    var names = Set<String>()
    for objectPath in objects.keys where objectPath.hasPrefix(prefix) && objectPath != path {
      let rest = objectPath.dropFirst(prefix.count)
      if let first = rest.split(separator: "/").first { names.insert(String(first)) }
    }
    return names.sorted()
  }
}

/// Introspection XML.
enum DBusIntrospection {
  static let interface = "org.freedesktop.DBus.Introspectable"
  static let propertiesInterface = "org.freedesktop.DBus.Properties"
  static let standardInterfaces: Set<String> = [
    interface, propertiesInterface, "org.freedesktop.DBus.Peer",
  ]

  static let standardXML = """
      <interface name="org.freedesktop.DBus.Peer">
        <method name="Ping"/>
        <method name="GetMachineId">
          <arg name="machine_uuid" type="s" direction="out"/>
        </method>
      </interface>
      <interface name="org.freedesktop.DBus.Introspectable">
        <method name="Introspect">
          <arg name="xml_data" type="s" direction="out"/>
        </method>
      </interface>
      <interface name="org.freedesktop.DBus.Properties">
        <method name="Get">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="property_name" type="s" direction="in"/>
          <arg name="value" type="v" direction="out"/>
        </method>
        <method name="GetAll">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="properties" type="a{sv}" direction="out"/>
        </method>
        <method name="Set">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="property_name" type="s" direction="in"/>
          <arg name="value" type="v" direction="in"/>
        </method>
        <signal name="PropertiesChanged">
          <arg name="interface_name" type="s"/>
          <arg name="changed_properties" type="a{sv}"/>
          <arg name="invalidated_properties" type="as"/>
        </signal>
      </interface>

    """

  static func xml(for object: DBusExportedObject?, children: [String]) -> String {
    var xml = """
      <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
      <node>

      """
    if let object {
      xml += standardXML
      for interface in object.interfaces { xml += interfaceXML(interface) }
    }
    for child in children { xml += "  <node name=\"\(child.xmlEscaped)\"/>\n" }
    xml += "</node>\n"
    return xml
  }

  /// One `<interface>` element (indented for a `<node>`), with the descriptors' documentation as
  /// `org.gtk.GDBus.DocString` annotations.
  static func interfaceXML(_ interface: DBusInterface) -> String {
    var xml =
      "  <interface name=\"\(interface.name.xmlEscaped)\">\n" + docAnnotation(interface.doc, indent: 4)
    for method in interface.methods {
      let body =
        docAnnotation(method.doc, indent: 6)
        + arguments(method.inSignature, names: method.inNames, direction: "in")
        + arguments(method.outSignature, names: method.outNames, direction: "out")
      xml += element("method", name: method.name, body: body)
    }
    for signal in interface.signals {
      let body =
        docAnnotation(signal.doc, indent: 6)
        + arguments(signal.signature, names: signal.argumentNames, direction: nil)
      xml += element("signal", name: signal.name, body: body)
    }
    for property in interface.properties {
      var body = docAnnotation(property.doc, indent: 6)
      if property.changeSignal != .emits {
        body +=
          "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.changeSignal.rawValue)\"/>\n"
      }
      xml += element(
        "property", name: property.name,
        attributes: " type=\"\(property.signature.xmlEscaped)\" access=\"\(property.access.rawValue)\"",
        body: body)
    }
    return xml + "  </interface>\n"
  }

  private static func element(_ tag: String, name: String, attributes: String = "", body: String) -> String {
    let head = "    <\(tag) name=\"\(name.xmlEscaped)\"\(attributes)"
    return body.isEmpty ? head + "/>\n" : head + ">\n" + body + "    </\(tag)>\n"
  }

  private static func docAnnotation(_ doc: String?, indent: Int) -> String {
    guard let doc, !doc.isEmpty else { return "" }
    return String(repeating: " ", count: indent)
      + "<annotation name=\"org.gtk.GDBus.DocString\" value=\"\(doc.xmlEscaped)\"/>\n"
  }

  private static func arguments(_ signature: String, names: [String], direction: String?) -> String {
    let types = DBusSignature.split(signature) ?? []
    var text = ""
    for (index, type) in types.enumerated() {
      let name = index < names.count ? " name=\"\(names[index].xmlEscaped)\"" : ""
      let dir = direction.map { " direction=\"\($0)\"" } ?? ""
      text += "      <arg\(name) type=\"\(type.xmlEscaped)\"\(dir)/>\n"
    }
    return text
  }

}

extension String {
  /// The text with XML's special characters replaced by entities (introspection data, SVG).
  public var xmlEscaped: String {
    var result = ""
    for character in self {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&apos;"
      default: result.append(character)
      }
    }
    return result
  }
}
