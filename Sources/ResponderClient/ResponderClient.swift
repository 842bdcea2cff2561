import DBus
import EventLoop
import EventTime
import ResponderCore
import ResponderInterfaces

/// What happened to a `ResponderClient`, for its observers.
public enum ResponderClientEvent: Sendable, Equatable {
  /// Registered with the daemon (also again with a restarted daemon), with the id it gave.
  case registered(UInt32)
  /// The daemon went away: the registration is lost until it comes back.
  case daemonLost
  /// This client became (true) or stopped being (false) the first responder.
  case firstResponderChanged(Bool)
}

/// An application's link to responderd: it exports an `org.responderd.Responder1` object,
/// registers it, can become first responder, and receives remote-control and motion events.
///
/// With closures:
///
/// ```swift
/// let loop = try EventLoop()
/// let client = try ResponderClient(connection: try .session(loop: loop), eventTypes: [.motion])
/// client.onEvent = { event in
///   if event.phase == .began { undo() }
///   return true  // handled: the event goes no further
/// }
/// client.register(becomeFirstResponder: true)
/// loop.run()
/// ```
///
/// Or UIKit-style: set `application` and the events are posted to that `Application`, whose
/// first responder and chain decide (handled when a responder handled it, as the dispatch record
/// says). Remote-control events then need `application.beginReceivingRemoteControlEvents()`.
///
/// The client keeps its registration: when responderd restarts it registers again (and becomes
/// first responder again when it was asked to). Events are only accepted from the current owner of
/// `org.responderd.Daemon1`. Everything runs on the connection's event loop.
public final class ResponderClient {
  public let connection: DBusConnection
  /// The path of the exported `org.responderd.Responder1` object.
  public let path: String
  /// The event types registered for.
  public let eventTypes: Set<EventType>
  /// The `CanBecomeFirstResponder` property the daemon reads (true here; a D-Bus application that
  /// does not implement it cannot become first responder, as in UIKit).
  public var canBecomeFirstResponder = true
  /// The `CanResignFirstResponder` property the daemon reads before another application takes over.
  public var canResignFirstResponder = true
  /// Decides on each event: return true when handled. Not handled when nil (and no `application`).
  public var onEvent: ((ResponderEvent) -> Bool)?
  /// An application to post events to instead of `onEvent`; its chain decides.
  public var application: Application? {
    didSet { observeApplication() }
  }
  private var observers: [(ResponderClientEvent) -> Void] = []
  /// How long calls to the daemon may take (seconds).
  public var timeout: Seconds = 5

  /// The id the daemon gave, nil while not registered.
  public private(set) var id: UInt32?
  /// Whether this client is the daemon's first responder now.
  public private(set) var isFirstResponder = false

  private var object: DBusExportedObject?
  private var daemonOwner: String?
  private var registeredWith: String?
  private var wantsRegistration = false
  private var wantsFirstResponder = false
  private var registering = false
  private var subscriptions: [DBusSubscription] = []
  private var observedApplications: [ObjectIdentifier] = []
  private var pendingApplicationReplies: [(timestamp: Seconds, call: DBusMethodCall)] = []

  /// The source of the events posted to `application` (in its dispatch records).
  public static let eventSource = "responderd"

  /// Exports the responder object at `path` (one client per path and connection).
  public init(
    connection: DBusConnection, path: String = "/org/responderd/Responder", eventTypes: Set<EventType>
  ) throws(DBusError) {
    self.connection = connection
    self.path = path
    self.eventTypes = eventTypes
    object = try connection.export(path: path, interfaces: [Self.responderInterface(for: self)])
    subscriptions.append(
      connection.watchNameOwner(ResponderBusAPI.daemonName) { [weak self] owner in
        self?.daemonOwnerChanged(owner)
      })
    subscriptions.append(
      connection.onPropertiesChanged(
        path: ResponderBusAPI.daemonPath, interface: ResponderBusAPI.daemonInterface
      ) { [weak self] message, changed, _ in
        guard let self, message.sender == self.daemonOwner, let first = changed["FirstResponder"]?.uint32
        else {
          return
        }
        self.setFirstResponder(self.id != nil && first == self.id)
      })
  }

  deinit {
    for subscription in subscriptions { subscription.cancel() }
    object?.unexport()
  }

  // MARK: Registration

  /// Registers with the daemon (and keeps registering again after a daemon restart until
  /// `unregister`); with `becomeFirstResponder`, asks to become first responder right after.
  /// `completion` gets the id, or the error (`ServiceUnknown`/`NameHasNoOwner` when responderd is
  /// not running: the client then registers as soon as it appears).
  public func register(
    becomeFirstResponder: Bool = false, completion: ((Result<UInt32, DBusError>) -> Void)? = nil
  ) {
    wantsRegistration = true
    if becomeFirstResponder { wantsFirstResponder = true }
    registerNow(completion: completion)
  }

  private func registerNow(completion: ((Result<UInt32, DBusError>) -> Void)?) {
    guard !registering else {
      completion?(.failure(DBusError.failed("a registration is already under way")))
      return
    }
    registering = true
    let message: DBusMessage
    do {
      message = try DBusMessage.methodCall(
        destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
        interface: ResponderBusAPI.daemonInterface, method: "RegisterResponder",
        arguments: [
          .objectPath(path), eventTypes.sorted { $0.rawValue < $1.rawValue }.map(\.name).dbusValue,
        ])
    } catch {
      registering = false
      completion?(.failure(error))
      return
    }
    connection.call(message, timeout: timeout) { [weak self] result in
      guard let self else { return }
      self.registering = false
      switch result {
      case .success(let reply):
        guard let id = reply.arguments.first?.uint32 else {
          completion?(
            .failure(DBusError(DBusError.Name.invalidSignature, "RegisterResponder returned no id")))
          return
        }
        self.id = id
        self.registeredWith = reply.sender
        if self.daemonOwner == nil { self.daemonOwner = reply.sender }
        self.notify(.registered(id))
        completion?(.success(id))
        if let active = self.isActive {
          self.setActive(active)
        } else if self.wantsFirstResponder {
          self.becomeFirstResponder()
        }
      case .failure(let error):
        completion?(.failure(error))
      }
    }
  }

  /// Asks to become first responder; `completion` gets whether the daemon accepted (it refuses
  /// when the current first responder's `CanResignFirstResponder` is false). Kept as a wish: after
  /// a daemon restart the client asks again.
  public func becomeFirstResponder(completion: ((Result<Bool, DBusError>) -> Void)? = nil) {
    askFirstResponder(true, completion: completion)
  }

  /// Whether this application's window is the active one, as last told with `setActive(_:)`; nil
  /// until then (the plain rule: the latest first responder gets every event).
  public private(set) var isActive: Bool?

  /// Tells the daemon whether this application's window is the active (focused) one: call it from
  /// the toolkit's focus changes (GTK's `Gtk.Window:is-active`, Qt's `QWindow::activeChanged`,
  /// SDL's focus events). Active, the client becomes first responder and gets the shakes; inactive
  /// (or once another application said active), it gets no shake. Kept: told again after a daemon
  /// restart, and told at registration when called before. `completion` gets whether the client is
  /// first responder then.
  public func setActive(_ active: Bool, completion: ((Result<Bool, DBusError>) -> Void)? = nil) {
    isActive = active
    guard id != nil else {
      connection.loop.runSoon { completion?(.success(false)) }
      return
    }
    callDaemon("SetActive", [.bool(active)]) { [weak self] result in
      let first = result.map { $0.first?.bool ?? false }
      if case .success(let value) = first, active || !value { self?.setFirstResponder(value) }
      completion?(first)
    }
  }

  /// Gives up first-responder status (the previous first responder gets it back).
  public func resignFirstResponder(completion: ((Result<Bool, DBusError>) -> Void)? = nil) {
    askFirstResponder(false, completion: completion)
  }

  /// Asks the daemon to make this client first responder or to let it resign, as a wish kept
  /// across daemon restarts; `completion` gets whether the daemon did.
  private func askFirstResponder(_ first: Bool, completion: ((Result<Bool, DBusError>) -> Void)?) {
    wantsFirstResponder = first
    callDaemon(first ? "BecomeFirstResponder" : "ResignFirstResponder") { [weak self] result in
      let done = result.map { $0.first?.bool ?? false }
      if case .success(true) = done { self?.setFirstResponder(first) }
      completion?(done)
    }
  }

  /// Unregisters (and stops registering again).
  public func unregister(completion: ((Result<Void, DBusError>) -> Void)? = nil) {
    wantsRegistration = false
    wantsFirstResponder = false
    callDaemon("UnregisterResponder") { [weak self] result in
      self?.id = nil
      self?.registeredWith = nil
      self?.setFirstResponder(false)
      completion?(result.map { _ in () })
    }
  }

  private func callDaemon(
    _ method: String, _ arguments: [DBusValue] = [], reply: @escaping (Result<[DBusValue], DBusError>) -> Void
  ) {
    guard let id, let registeredWith else {
      connection.loop.runSoon { reply(.failure(DBusError.failed("not registered with responderd"))) }
      return
    }
    connection.call(
      destination: registeredWith, path: ResponderBusAPI.daemonPath,
      interface: ResponderBusAPI.daemonInterface,
      method: method, arguments: [.uint32(id)] + arguments, timeout: timeout, reply: reply)
  }

  /// Calls `observer` with every later registration, loss of the daemon and change of first
  /// responder.
  public func addObserver(_ observer: @escaping (ResponderClientEvent) -> Void) {
    observers.append(observer)
  }

  private func notify(_ event: ResponderClientEvent) {
    for observer in observers { observer(event) }
  }

  private func daemonOwnerChanged(_ owner: String?) {
    daemonOwner = owner
    guard owner != registeredWith else { return }
    if registeredWith != nil {
      id = nil
      registeredWith = nil
      setFirstResponder(false)
      notify(.daemonLost)
    }
    if owner != nil, wantsRegistration, !registering { registerNow(completion: nil) }
  }

  private func setFirstResponder(_ value: Bool) {
    guard value != isFirstResponder else { return }
    isFirstResponder = value
    notify(.firstResponderChanged(value))
  }

  // MARK: Events

  /// The documented `org.responderd.Responder1` interface a client exports (`responderctl
  /// interfaces` writes it to `org.responderd.Responder1.xml`).
  public static var interfaceDescription: DBusInterface { ResponderBusAPI.responderInterfaceDescription }

  private static func responderInterface(for client: ResponderClient?) -> DBusInterface {
    ResponderBusAPI.responderInterface(
      receive: { [weak client] call in
        guard let client else { return call.reply([.bool(false)]) }
        client.receive(call)
      },
      canBecomeFirstResponder: { [weak client] in client?.canBecomeFirstResponder ?? false },
      canResignFirstResponder: { [weak client] in client?.canResignFirstResponder ?? true })
  }

  private func receive(_ call: DBusMethodCall) {
    guard call.sender == daemonOwner || call.sender == registeredWith else {
      return call.reply(
        error: DBusError(DBusError.Name.accessDenied, "events are accepted from responderd only"))
    }
    guard let (type, phase) = ResponderBusAPI.event(forMethod: call.member),
      let subtype = EventSubtype(name: call.arguments[0].string ?? ""),
      let timestamp = call.arguments[1].double
    else {
      return call.reply(error: .invalidArgs("unknown event subtype '\(call.arguments[0].string ?? "")'"))
    }
    let event = ResponderEvent(type: type, subtype: subtype, phase: phase, timestamp: timestamp)
    if let application {
      pendingApplicationReplies.append((timestamp, call))
      application.post(
        Event(type: type, subtype: subtype, timestamp: timestamp, source: Self.eventSource),
        phase: phase ?? .began)
    } else {
      call.reply([.bool(onEvent?(event) ?? false)])
    }
  }

  private func observeApplication() {
    guard let application, !observedApplications.contains(ObjectIdentifier(application)) else { return }
    observedApplications.append(ObjectIdentifier(application))
    application.addDispatchObserver { [weak self] record in
      guard let self, record.source == Self.eventSource,
        let index = self.pendingApplicationReplies.firstIndex(where: { $0.timestamp == record.timestamp })
      else { return }
      let pending = self.pendingApplicationReplies.remove(at: index)
      pending.call.reply([.bool(!record.wasDropped)])
    }
  }
}
