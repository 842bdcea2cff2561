import EventTime

/// Flags of `RequestName`.
public struct DBusNameFlags: OptionSet, Sendable, Hashable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  /// Let another connection that asks with `replaceExisting` take the name from us.
  public static let allowReplacement = DBusNameFlags(rawValue: 1)
  /// Take the name from its owner if that owner allowed replacement.
  public static let replaceExisting = DBusNameFlags(rawValue: 2)
  /// Fail rather than wait in the queue when the name is taken.
  public static let doNotQueue = DBusNameFlags(rawValue: 4)
}

/// The answer to `RequestName`.
public enum DBusRequestNameResult: UInt32, Sendable {
  case primaryOwner = 1
  case inQueue = 2
  case exists = 3
  case alreadyOwner = 4

  /// Whether we own the name now.
  public var isOwner: Bool { self == .primaryOwner || self == .alreadyOwner }
}

/// A name to ask for again after each reconnection.
struct OwnedName {
  var name: String
  var flags: DBusNameFlags
  /// The reply of a request made before registration, delivered once.
  var reply: ((Result<DBusRequestNameResult, DBusError>) -> Void)?
  /// The link (`generation`) on which the name was already asked for, behind Hello.
  var requestedOn: Int?
}

/// Calls on the bus driver (`org.freedesktop.DBus`): names and caller credentials.
extension MessageBus {
  fileprivate func busCall(
    _ method: String, _ arguments: [DBusValue], timeout: Seconds = 25,
    reply: @escaping (Result<[DBusValue], DBusError>) -> Void
  ) {
    call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: method, arguments: arguments, timeout: timeout, reply: reply)
  }

  fileprivate func busCall<T: DBusConvertible>(
    _ method: String, _ arguments: [DBusValue], as type: T.Type,
    reply: @escaping (Result<T, DBusError>) -> Void
  ) {
    busCall(method, arguments) { result in
      reply(
        result.flatMap { values in
          guard let first = values.first, let value = T(dbusValue: first) else {
            return .failure(
              DBusError(DBusError.Name.invalidSignature, "\(method) returned '\(values.signature)'"))
          }
          return .success(value)
        })
    }
  }

  /// The unique name owning `name`; `.failure` with `NameHasNoOwner` when nobody owns it.
  public func getNameOwner(_ name: String, reply: @escaping (Result<String, DBusError>) -> Void) {
    busCall("GetNameOwner", [.string(name)], as: String.self, reply: reply)
  }

  /// Every name on the bus (unique and well-known).
  public func listNames(reply: @escaping (Result<[String], DBusError>) -> Void) {
    busCall("ListNames", [], as: [String].self, reply: reply)
  }

  /// Whether `name` has an owner.
  public func nameHasOwner(_ name: String, reply: @escaping (Result<Bool, DBusError>) -> Void) {
    busCall("NameHasOwner", [.string(name)], as: Bool.self, reply: reply)
  }

  /// The uid of the process behind a connection (for caller checks: pass a call's `sender`).
  public func unixUser(of busName: String, reply: @escaping (Result<UInt32, DBusError>) -> Void) {
    busCall("GetConnectionUnixUser", [.string(busName)], as: UInt32.self, reply: reply)
  }

  /// The pid of the process behind a connection.
  public func unixProcessID(of busName: String, reply: @escaping (Result<UInt32, DBusError>) -> Void) {
    busCall("GetConnectionUnixProcessID", [.string(busName)], as: UInt32.self, reply: reply)
  }
}

/// Client side of `org.freedesktop.DBus.Properties` on remote objects.
extension MessageBus {
  /// Reads one property of a remote object (the variant is removed).
  public func getProperty(
    _ name: String, interface: String, path: String, destination: String, timeout: Seconds = 25,
    reply: @escaping (Result<DBusValue, DBusError>) -> Void
  ) {
    call(
      destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
      arguments: [.string(interface), .string(name)], timeout: timeout
    ) { result in
      reply(
        result.flatMap { values in
          guard values.count == 1, case .variant(let value) = values[0] else {
            return .failure(DBusError(DBusError.Name.invalidSignature, "Get returned '\(values.signature)'"))
          }
          return .success(value)
        })
    }
  }

  /// Reads every property of an interface of a remote object (variants removed).
  public func getAllProperties(
    interface: String, path: String, destination: String, timeout: Seconds = 25,
    reply: @escaping (Result<[String: DBusValue], DBusError>) -> Void
  ) {
    call(
      destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", method: "GetAll",
      arguments: [.string(interface)], timeout: timeout
    ) { result in
      reply(
        result.flatMap { values in
          guard values.count == 1, let dictionary = values[0].dictionary else {
            return .failure(
              DBusError(DBusError.Name.invalidSignature, "GetAll returned '\(values.signature)'"))
          }
          return .success(dictionary)
        })
    }
  }

  /// Reads the properties of an interface of a remote object that `wanted` accepts, within
  /// `limits` (see `DBusMessage.readProperties`): the others are named, never decoded.
  public func getAllProperties(
    interface: String, path: String, destination: String, timeout: Seconds = 25, limits: DBusDecodingLimits,
    wanted: @escaping (_ name: String) -> Bool,
    reply: @escaping (Result<DBusPropertyValues, DBusError>) -> Void
  ) {
    let message: DBusMessage
    do {
      message = try DBusMessage.methodCall(
        destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", method: "GetAll",
        arguments: [.string(interface)])
    } catch {
      scheduler.schedule(after: 0) { reply(.failure(error)) }
      return
    }
    call(message, timeout: timeout) { result in
      reply(
        result.flatMap { answer in
          guard let values = answer.readProperties(limits: limits, wanted: wanted) else {
            return .failure(
              DBusError(DBusError.Name.invalidSignature, "GetAll returned '\(answer.signature)'"))
          }
          return .success(values)
        })
    }
  }

  /// Sets a property of a remote object (`value` is wrapped in a variant here).
  public func setProperty(
    _ name: String, to value: DBusValue, interface: String, path: String, destination: String,
    timeout: Seconds = 25, reply: ((Result<Void, DBusError>) -> Void)? = nil
  ) {
    call(
      destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", method: "Set",
      arguments: [.string(interface), .string(name), .variant(value)], timeout: timeout
    ) { result in reply?(result.map { _ in () }) }
  }

  /// Follows `PropertiesChanged` of `interface` (optionally only from `sender` and/or `path`):
  /// the handler gets the message (for its sender and path), the changed values and the
  /// invalidated names.
  @discardableResult
  public func onPropertiesChanged(
    sender: String? = nil, path: String? = nil, interface: String? = nil,
    handler:
      @escaping (_ message: DBusMessage, _ changed: [String: DBusValue], _ invalidated: [String]) -> Void
  ) -> DBusSubscription {
    subscribe(
      DBusMatchRule(
        sender: sender, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: path,
        arguments: interface.map { [0: $0] } ?? [:])
    ) { message in
      guard let change = message.readPropertiesChanged(wanted: { _, _ in true }) else { return }
      handler(message, change.changed, change.invalidated)
    }
  }
}

/// Names owned by a real connection, asked for again after each reconnection.
extension DBusConnection {
  /// Asks for `name`. With `keep` (the default) the name is requested again after every
  /// reconnection until `releaseName`. When not connected yet, the request waits for registration.
  public func requestName(
    _ name: String, flags: DBusNameFlags = [.doNotQueue], keep: Bool = true,
    reply: ((Result<DBusRequestNameResult, DBusError>) -> Void)? = nil
  ) {
    if keep {
      ownedNames.removeAll { $0.name == name }
      switch state {
      case .connected:
        ownedNames.append(OwnedName(name: name, flags: flags, reply: nil))
      case .connecting:
        // Sent now, behind Hello (the bus answers in order): the name is owned right after
        // registration, without waiting for Hello's reply, match rules or queries.
        let sentOn = generation
        ownedNames.append(OwnedName(name: name, flags: flags, reply: nil, requestedOn: sentOn))
        busCall("RequestName", [.string(name), .uint32(flags.rawValue)], as: UInt32.self) {
          [weak self] result in
          // The link went away first: asked again (with this reply) once registered anew.
          if case .failure = result, let self, self.generation != sentOn || self.state != .connected,
            let index = self.ownedNames.firstIndex(where: { $0.name == name && $0.requestedOn == sentOn })
          {
            self.ownedNames[index].reply = reply
            self.ownedNames[index].requestedOn = nil
            return
          }
          reply?(
            result.flatMap { code in
              DBusRequestNameResult(rawValue: code).map { .success($0) }
                ?? .failure(DBusError.failed("RequestName returned \(code)"))
            })
        }
        return
      default:
        // Asked once registered (restoreBusState), with this reply.
        ownedNames.append(OwnedName(name: name, flags: flags, reply: reply))
        return
      }
    }
    busCall("RequestName", [.string(name), .uint32(flags.rawValue)], as: UInt32.self) { result in
      reply?(
        result.flatMap { code in
          DBusRequestNameResult(rawValue: code).map { .success($0) }
            ?? .failure(DBusError.failed("RequestName returned \(code)"))
        })
    }
  }

  /// Asks for `name`, again after every reconnection until `releaseName`.
  public func requestName(
    _ name: String, flags: DBusNameFlags, reply: ((Result<DBusRequestNameResult, DBusError>) -> Void)?
  ) {
    requestName(name, flags: flags, keep: true, reply: reply)
  }

  /// Releases `name` (and stops asking for it after reconnections).
  public func releaseName(_ name: String, reply: ((Result<UInt32, DBusError>) -> Void)?) {
    ownedNames.removeAll { $0.name == name }
    busCall("ReleaseName", [.string(name)], as: UInt32.self) { reply?($0) }
  }

}
