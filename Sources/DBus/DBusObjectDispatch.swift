/// The objects a bus connection exports, and the dispatch of incoming method calls to them:
/// their methods, the standard Introspectable and Properties interfaces, and the errors D-Bus
/// specifies for unknown objects, interfaces, methods and wrong arguments. Every bus (the real
/// connection, the in-memory one) answers calls through one of these.
package final class DBusObjectTable {
  private(set) var objects: [String: DBusExportedObject] = [:]
  /// Asked before any call to an exported object is answered (see `MessageBus.callerCheck`).
  package var callerCheck: DBusCallerCheck?

  package init() {}

  /// How replies go back: through the bus the call came from.
  package typealias Send = (DBusMessage) throws(DBusError) -> Void

  /// Exports an object at `path` implementing `interfaces`, its signals emitted on `bus`.
  package func export(path: String, interfaces: [DBusInterface], on bus: any MessageBus) throws(DBusError)
    -> DBusExportedObject
  {
    try DBusNames.validatePath(path)
    for interface in interfaces { try interface.validate() }
    guard objects[path] == nil else { throw DBusError.failed("an object is already exported at \(path)") }
    let object = DBusExportedObject(path: path, interfaces: interfaces, bus: bus, table: self)
    objects[path] = object
    return object
  }

  /// The object exported at `path`, if any.
  package func object(at path: String) -> DBusExportedObject? { objects[path] }

  func remove(_ object: DBusExportedObject) {
    guard objects[object.path] === object else { return }
    objects[object.path] = nil
  }

  /// Forgets every object (the connection is closed for good).
  package func removeAll() { objects.removeAll() }

  /// Answers an incoming method call, now or later, through `send`: once `callerCheck`, if any,
  /// lets the caller in; with its error otherwise.
  package func handleMethodCall(_ message: DBusMessage, replyingWith send: @escaping Send) {
    guard let callerCheck else { return dispatch(message, replyingWith: send) }
    guard let sender = message.sender else {
      return answer(
        send, message,
        error: DBusError(DBusError.Name.accessDenied, "a call without a sender is not answered"))
    }
    let member = [message.interface, message.member].compactMap { $0 }.joined(separator: ".")
    callerCheck(sender, member) { [weak self] refusal in
      guard let self else { return }
      if let refusal {
        self.answer(send, message, error: refusal)
      } else {
        self.dispatch(message, replyingWith: send)
      }
    }
  }

  private func dispatch(_ message: DBusMessage, replyingWith send: @escaping Send) {
    let path = message.path ?? "/"
    let member = message.member ?? ""
    let interfaceName = message.interface
    guard let object = objects[path] else {
      if interfaceName ?? DBusIntrospection.interface == DBusIntrospection.interface, member == "Introspect",
        !childNames(of: path).isEmpty
      {
        answer(send, message, [.string(DBusIntrospection.xml(for: nil, children: childNames(of: path)))])
      } else {
        answer(send, message, error: DBusError(DBusError.Name.unknownObject, "no object at path \(path)"))
      }
      return
    }
    switch interfaceName {
    case DBusIntrospection.interface:
      guard member == "Introspect" else { return unknownMethod(send, message) }
      guard message.signature.isEmpty else { return wrongArguments(send, message, expected: "") }
      answer(send, message, [.string(DBusIntrospection.xml(for: object, children: childNames(of: path)))])
    case DBusIntrospection.propertiesInterface:
      handlePropertiesCall(send, message, object: object)
    case nil:
      // No interface: look the member up in every interface, the standard ones first.
      if member == "Introspect" && message.signature.isEmpty {
        answer(send, message, [.string(DBusIntrospection.xml(for: object, children: childNames(of: path)))])
      } else if DBusIntrospection.propertiesSignatures[member] != nil {
        handlePropertiesCall(send, message, object: object)
      } else if let method = object.interfaces.lazy.compactMap({ $0.method(member) }).first {
        invoke(send, method, message)
      } else {
        unknownMethod(send, message)
      }
    case let name?:
      guard let interface = object.interface(name) else {
        answer(
          send, message,
          error: DBusError(DBusError.Name.unknownInterface, "no interface \(name) on object \(path)")
        )
        return
      }
      guard let method = interface.method(member) else { return unknownMethod(send, message) }
      invoke(send, method, message)
    }
  }

  private func invoke(_ send: @escaping Send, _ method: DBusMethod, _ message: DBusMessage) {
    guard message.signature == method.inSignature else {
      return wrongArguments(send, message, expected: method.inSignature)
    }
    guard withinLimits(send, message) else { return }
    method.handler(DBusMethodCall(message: message, outSignature: method.outSignature, send: send))
  }

  /// Whether the arguments of `message` stay within `DBusDecodingLimits.methodCall` (then read);
  /// refuses the call otherwise, without decoding more than the limits.
  private func withinLimits(_ send: Send, _ message: DBusMessage) -> Bool {
    guard !message.signature.isEmpty, message.arguments(within: .methodCall).exceededLimits else {
      return true
    }
    let limits = DBusDecodingLimits.methodCall
    answer(
      send, message,
      error: .invalidArgs(
        "the arguments exceed what one call may bring: \(limits.maximumEntries) elements per array, \(limits.maximumValues) values, strings of \(limits.maximumStringBytes) bytes, \(limits.maximumDepth) levels of containers"
      ))
    return false
  }

  private func handlePropertiesCall(_ send: Send, _ message: DBusMessage, object: DBusExportedObject) {
    let expected = DBusIntrospection.propertiesSignatures[message.member ?? ""]
    if let expected, message.signature != expected {
      return wrongArguments(send, message, expected: expected)
    }
    guard expected == nil || withinLimits(send, message) else { return }
    let arguments = expected == nil ? [] : message.arguments
    func lookup(_ interfaceName: String) -> DBusInterface? {
      guard let interface = object.interface(interfaceName) else {
        if DBusIntrospection.standardInterfaces.contains(interfaceName) {
          return DBusInterface(interfaceName)
        }
        answer(
          send, message,
          error: DBusError(
            DBusError.Name.unknownInterface, "no interface \(interfaceName) on object \(object.path)"))
        return nil
      }
      return interface
    }
    func property(_ interface: DBusInterface, _ name: String) -> DBusProperty? {
      guard let property = interface.property(name) else {
        answer(
          send, message,
          error: DBusError(
            DBusError.Name.unknownProperty, "no property \(name) in interface \(interface.name)"))
        return nil
      }
      return property
    }
    /// The interface and property the first two arguments name; nil once the error is answered.
    func namedProperty() -> (DBusInterface, DBusProperty)? {
      guard let interface = lookup(arguments[0].string ?? ""),
        let property = property(interface, arguments[1].string ?? "")
      else { return nil }
      return (interface, property)
    }
    func refuse(_ error: String, _ interface: DBusInterface, _ property: DBusProperty, _ reason: String) {
      answer(send, message, error: DBusError(error, "property \(interface.name).\(property.name) \(reason)"))
    }
    func read(_ property: DBusProperty, _ get: () -> DBusValue, in interface: DBusInterface) -> DBusValue? {
      let value = get()
      guard value.signature == property.signature else {
        answer(
          send, message,
          error: DBusError.failed(
            "property \(interface.name).\(property.name) produced '\(value.signature)' instead of '\(property.signature)'"
          ))
        return nil
      }
      return value
    }

    switch message.member {
    case "Get":
      guard case let (interface, property)? = namedProperty() else { return }
      guard let get = property.get else {
        return refuse(DBusError.Name.accessDenied, interface, property, "is write-only")
      }
      guard let value = read(property, get, in: interface) else { return }
      answer(send, message, [.variant(value)])
    case "GetAll":
      guard let interface = lookup(arguments[0].string ?? "") else { return }
      var values: [String: DBusValue] = [:]
      for property in interface.properties {
        guard let get = property.get else { continue }
        guard let value = read(property, get, in: interface) else { return }
        values[property.name] = value
      }
      answer(send, message, [.vardict(values)])
    case "Set":
      guard case let (interface, property)? = namedProperty() else { return }
      guard let set = property.set else {
        return refuse(DBusError.Name.propertyReadOnly, interface, property, "is read-only")
      }
      guard case .variant(let value) = arguments[2], value.signature == property.signature else {
        let given = arguments[2].unwrapped.signature
        return answer(
          send, message,
          error: .invalidArgs(
            "property \(interface.name).\(property.name) has type '\(property.signature)', not '\(given)'"))
      }
      do {
        try set(value)
        answer(send, message, [])
      } catch let error as DBusError {
        answer(send, message, error: error)
      } catch {
        answer(send, message, error: DBusError.failed("\(error)"))
      }
    default:
      unknownMethod(send, message)
    }
  }

  private func unknownMethod(_ send: Send, _ message: DBusMessage) {
    let member = message.member ?? ""
    let place = message.interface.map { " in interface \($0)" } ?? ""
    answer(
      send, message,
      error: DBusError(
        DBusError.Name.unknownMethod,
        "no method \(member)\(place) with signature '\(message.signature)' on object \(message.path ?? "/")"))
  }

  private func wrongArguments(_ send: Send, _ message: DBusMessage, expected: String) {
    let member = [message.interface, message.member].compactMap { $0 }.joined(separator: ".")
    answer(
      send, message,
      error: .invalidArgs(
        "\(member) expects arguments of signature '\(expected)', got '\(message.signature)'"))
  }

  private func answer(_ send: Send, _ message: DBusMessage, _ values: [DBusValue]) {
    guard !message.noReplyExpected, let reply = try? message.makeReply(values) else { return }
    try? send(reply)
  }

  private func answer(_ send: Send, _ message: DBusMessage, error: DBusError) {
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
