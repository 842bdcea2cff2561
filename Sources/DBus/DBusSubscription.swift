/// A match rule: which messages a subscription wants (the bus routes by it, and the connection
/// filters locally with it, since the bus delivers the union of all rules).
///
/// ```swift
/// DBusMatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
///               path: "/org/mpris/MediaPlayer2")
/// ```
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
  /// The message kind (signals by default).
  public var kind: DBusMessage.Kind?
  /// A unique name, or a well-known name (resolved to its current owner).
  public var sender: String?
  public var interface: String?
  public var member: String?
  public var path: String?
  /// Matches `pathNamespace` itself and every path below it.
  public var pathNamespace: String?
  public var destination: String?
  /// String arguments that must be equal (index → value), e.g. `[0: "org.mpris.MediaPlayer2.mpv"]`.
  public var arguments: [Int: String]
  /// The first argument is this bus name or one below it (`org.mpris.MediaPlayer2` matches
  /// `org.mpris.MediaPlayer2.mpv`).
  public var arg0Namespace: String?

  public init(
    kind: DBusMessage.Kind? = .signal, sender: String? = nil, interface: String? = nil, member: String? = nil,
    path: String? = nil, pathNamespace: String? = nil, destination: String? = nil,
    arguments: [Int: String] = [:], arg0Namespace: String? = nil
  ) {
    self.kind = kind
    self.sender = sender
    self.interface = interface
    self.member = member
    self.path = path
    self.pathNamespace = pathNamespace
    self.destination = destination
    self.arguments = arguments
    self.arg0Namespace = arg0Namespace
  }

  /// The rule in the bus's syntax (`type='signal',interface='…'`).
  public var description: String {
    var parts: [String] = []
    func add(_ key: String, _ value: String?) {
      guard let value else { return }
      parts.append("\(key)='\(value.replacingAll("'", with: "'\\''"))'")
    }
    add("type", kind.map { "\($0)" })
    add("sender", sender)
    add("interface", interface)
    add("member", member)
    add("path", path)
    add("path_namespace", pathNamespace)
    add("destination", destination)
    for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
    add("arg0namespace", arg0Namespace)
    return parts.joined(separator: ",")
  }

  /// Whether `message` matches every field but the sender (checked by the subscription, which
  /// knows the owner of a well-known sender name).
  func matchesIgnoringSender(_ message: DBusMessage) -> Bool {
    if let kind, message.kind != kind { return false }
    if let interface, message.interface != interface { return false }
    if let member, message.member != member { return false }
    if let path, message.path != path { return false }
    if let pathNamespace {
      guard let messagePath = message.path else { return false }
      let prefix = pathNamespace == "/" ? "/" : pathNamespace + "/"
      if messagePath != pathNamespace && !messagePath.hasPrefix(prefix) { return false }
    }
    if let destination, message.destination != destination { return false }
    if !arguments.isEmpty || arg0Namespace != nil {
      let values = message.arguments
      for (index, expected) in arguments {
        guard index < values.count, case .string(let actual) = values[index], actual == expected else {
          return false
        }
      }
      if let arg0Namespace {
        guard let first = values.first, case .string(let name) = first,
          name == arg0Namespace || name.hasPrefix(arg0Namespace + ".")
        else { return false }
      }
    }
    return true
  }

  /// Whether the sender field needs resolving (a well-known name other than the bus itself).
  var needsSenderResolution: Bool {
    guard let sender else { return false }
    return !sender.hasPrefix(":") && sender != "org.freedesktop.DBus"
  }
}

/// A live subscription to messages matching a rule; the connection keeps it until `cancel()`.
public final class DBusSubscription {
  public let rule: DBusMatchRule
  let handler: (DBusMessage) -> Void
  weak var connection: DBusConnection?
  /// The unique name owning the rule's well-known sender name, when known.
  var resolvedSender: String?
  /// Tracks the owner of a well-known sender name.
  var ownerWatch: DBusSubscription?
  /// Asks the bus for state to start from (GetNameOwner), on subscribing and after reconnecting.
  var initialQuery: (() -> Void)?
  public private(set) var isActive = true

  init(rule: DBusMatchRule, connection: DBusConnection, handler: @escaping (DBusMessage) -> Void) {
    self.rule = rule
    self.connection = connection
    self.handler = handler
  }

  /// Stops delivery and removes the match rule from the bus.
  public func cancel() {
    guard isActive else { return }
    isActive = false
    ownerWatch?.cancel()
    ownerWatch = nil
    connection?.removeSubscription(self)
  }

  func matches(_ message: DBusMessage) -> Bool {
    guard isActive, rule.matchesIgnoringSender(message) else { return false }
    guard let sender = rule.sender else { return true }
    if rule.needsSenderResolution {
      return resolvedSender != nil && message.sender == resolvedSender
    }
    return message.sender == sender
  }
}

/// A change of owner of a bus name (`NameOwnerChanged`); nil owners mean "none".
public struct DBusNameOwnerChange: Sendable, Equatable {
  public var name: String
  public var oldOwner: String?
  public var newOwner: String?

  public init(name: String, oldOwner: String?, newOwner: String?) {
    self.name = name
    self.oldOwner = oldOwner
    self.newOwner = newOwner
  }
}

extension DBusConnection {
  /// Subscribes `handler` to messages matching `rule` (AddMatch on the bus; re-added after a
  /// reconnection). Handlers run in subscription order, on the loop.
  @discardableResult
  public func subscribe(_ rule: DBusMatchRule, handler: @escaping (DBusMessage) -> Void) -> DBusSubscription {
    let subscription = DBusSubscription(rule: rule, connection: self, handler: handler)
    subscriptions.append(subscription)
    if rule.needsSenderResolution, let name = rule.sender {
      subscription.ownerWatch = watchNameOwner(name) { [weak subscription] owner in
        subscription?.resolvedSender = owner
      }
    }
    if state == .connected { addMatch(rule) }
    return subscription
  }

  /// Subscribes to signals: `connection.onSignal(interface: "org.x.Y", member: "Changed") { m in … }`.
  @discardableResult
  public func onSignal(
    sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
    handler: @escaping (DBusMessage) -> Void
  ) -> DBusSubscription {
    subscribe(
      DBusMatchRule(kind: .signal, sender: sender, interface: interface, member: member, path: path),
      handler: handler)
  }

  /// Follows `NameOwnerChanged` for one `name`, or for every name in `namespace` (the name itself
  /// and names below it), or for all names when both are nil.
  @discardableResult
  public func onNameOwnerChanged(
    name: String? = nil, namespace: String? = nil, handler: @escaping (DBusNameOwnerChange) -> Void
  ) -> DBusSubscription {
    var rule = DBusMatchRule(
      kind: .signal, sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
      member: "NameOwnerChanged", path: "/org/freedesktop/DBus", arg0Namespace: namespace)
    if let name { rule.arguments[0] = name }
    return subscribe(rule) { message in
      let values = message.arguments
      guard values.count == 3, let name = values[0].string, let old = values[1].string,
        let new = values[2].string
      else { return }
      handler(
        DBusNameOwnerChange(name: name, oldOwner: old.isEmpty ? nil : old, newOwner: new.isEmpty ? nil : new))
    }
  }

  /// Tracks the owner of `name`: `handler` gets the current owner (GetNameOwner, nil when none)
  /// and then each change; again after a reconnection.
  @discardableResult
  public func watchNameOwner(_ name: String, handler: @escaping (String?) -> Void) -> DBusSubscription {
    // A change seen after the query was sent is newer than the query's answer.
    final class Version { var value = 0 }
    let version = Version()
    let subscription = onNameOwnerChanged(name: name) { change in
      version.value += 1
      handler(change.newOwner)
    }
    subscription.initialQuery = { [weak self, weak subscription] in
      let asked = version.value
      self?.getNameOwner(name) { result in
        guard subscription?.isActive == true, version.value == asked else { return }
        handler(try? result.get())
      }
    }
    if state == .connected { subscription.initialQuery?() }
    return subscription
  }

  func removeSubscription(_ subscription: DBusSubscription) {
    subscriptions.removeAll { $0 === subscription }
    guard isConnected else { return }
    try? callWithoutReply(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "RemoveMatch", arguments: [.string(subscription.rule.description)])
  }

  private func addMatch(_ rule: DBusMatchRule) {
    // Errors (a malformed rule, too many rules) are not fatal: the subscription just stays silent.
    call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "AddMatch", arguments: [.string(rule.description)], timeout: 25
    ) { _ in }
  }

  func deliverSignal(_ message: DBusMessage) {
    for subscription in subscriptions where subscription.matches(message) {
      subscription.handler(message)
    }
  }

  /// Re-registers what the bus forgot: match rules, owner queries, names.
  func restoreBusState() {
    for subscription in subscriptions where subscription.isActive {
      addMatch(subscription.rule)
    }
    for subscription in subscriptions where subscription.isActive {
      subscription.initialQuery?()
    }
    for index in ownedNames.indices {
      let owned = ownedNames[index]
      ownedNames[index].reply = nil
      requestName(owned.name, flags: owned.flags, keep: false, reply: owned.reply)
    }
  }
}
