import DBus
import EventTime
import Logging
import ResponderConfig
import ResponderCore
import ResponderInterfaces
import SessionWatcher
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's D-Bus API (`org.responderd.Daemon1` at `/org/responderd/Daemon1`): applications
/// register as responders and become first responder; every dispatched event is published.
/// See `ResponderBusAPI` for the names and signatures.
///
/// Every method checks its caller: it must run as the daemon's own user
/// (`GetConnectionCredentials`), and only the connection that registered an id may act on it.
public final class ResponderAPI: ServiceComponent {
  public let componentName = "responders"
  private var registry: AppResponderRegistry?
  private var connection: (any MessageBus)?
  private var object: DBusExportedObject?
  /// NameOwnerChanged watches of the connections that registered responders.
  private var watches: [String: DBusSubscription] = [:]
  /// The connections the dispatch signals go to (`WatchEvents`), with their NameOwnerChanged watch.
  private var eventWatchers: [String: DBusSubscription] = [:] {
    didSet {
      events.eventWatchers = eventWatchers.keys.sorted()
      for gone in oldValue.keys where eventWatchers[gone] == nil { watcherFlows.remove(gone) }
    }
  }
  /// How far each watcher has read (one that stops reading gets no more signals, then is dropped).
  private lazy var watcherFlows = EventWatcherFlows(logger: logger) { [weak self] watcher in
    self?.eventWatchers.removeValue(forKey: watcher)?.cancel()
  }
  private var pendingSends: [PendingSend] = []
  private var lastFirstResponder: UInt32 = 0
  /// Whether the registrations or their order changed since `Chain` was last announced.
  private var chainChanged = false
  private var changeAnnouncementScheduled = false
  private let logger: Logger
  private let events: ServiceEvents
  private let chain: HandlerChain
  private let settings: ResponderSettings
  private let configFile: String
  private let scheduler: any Scheduler

  private struct PendingSend {
    var source: String
    var timestamp: Seconds
    var call: DBusMethodCall
  }

  private let bus: BusComponent?
  private let session: SessionComponent?
  private let motionInterest: MotionInterest?

  /// The API served on `bus` (none without it); the `Session` property tells `session`'s state,
  /// and the applications that take motion are counted in `motionInterest` (whose `isWanted` is
  /// the `MotionInterest` property). Events are posted to and published from `events`; the chain
  /// `chain` follows the registered applications; `settings` are the config's `[responders]`, read
  /// from `configFile`.
  public init(
    bus: BusComponent?, session: SessionComponent?, motionInterest: MotionInterest?, events: ServiceEvents,
    chain: HandlerChain, settings: ResponderSettings, configFile: String, scheduler: any Scheduler,
    logger: Logger
  ) {
    self.bus = bus
    self.session = session
    self.motionInterest = motionInterest
    self.events = events
    self.chain = chain
    self.settings = settings
    self.configFile = configFile
    self.scheduler = scheduler
    self.logger = logger
  }

  public var dependencies: [ServiceComponent] { ([bus, session] as [ServiceComponent?]).compactMap { $0 } }

  /// The connections Daemon1's PropertiesChanged goes to, each alone: those that called
  /// WatchEvents and the registered applications, all of the user (checked as every call is);
  /// never broadcast, where any user of a bus shared by users could listen.
  var listeners: [String] {
    Set(eventWatchers.keys).union(registry?.order.map(\.busName) ?? []).sorted()
  }

  /// The applications registered now, in chain order (the first responder first).
  public var registeredResponders: [AppResponder] { registry?.order ?? [] }

  public func start() throws {
    let registry = AppResponderRegistry(
      application: events.application, chain: chain, deadline: settings.deadline,
      eventDeadline: max(settings.eventDeadline, settings.deadline), scheduler: scheduler, logger: logger)
    self.registry = registry
    registry.addChangeObserver { [weak self] in self?.registrationsChanged() }
    events.application.addFirstResponderObserver { [weak self] _ in self?.registrationsChanged() }
    events.addDispatchObserver { [weak self] record in self?.published(record) }
    motionInterest?.addObserver { [weak self] _ in
      guard let self else { return }
      try? self.object?.propertiesChanged(
        interface: ResponderBusAPI.daemonInterface, ["MotionInterest"], destinations: self.listeners)
    }
    motionInterest?.addAccelerometerObserver { [weak self] in
      guard let self else { return }
      try? self.object?.propertiesChanged(
        interface: ResponderBusAPI.daemonInterface, ["Accelerometer"], destinations: self.listeners)
    }
    session?.addObserver { [weak self] _ in
      guard let self else { return }
      try? self.object?.propertiesChanged(
        interface: ResponderBusAPI.daemonInterface, ["Session"], destinations: self.listeners)
    }
    guard let bus else {
      logger.notice("responders: no bus in this service; applications cannot register")
      return
    }
    bus.withConnection { [weak self] connection in
      self?.attach(connection)
      connection.addObserver { [weak self] event in
        guard case .connected = event, let self else { return }
        // Registrations and event watchers belong to connections of the bus we had before: all gone.
        self.registry?.removeEverything(reason: "responderd reconnected to the bus")
        for watch in self.eventWatchers.values { watch.cancel() }
        self.eventWatchers.removeAll()
      }
    }
  }

  public func stop() {
    registry?.dropCallsInProgress()
    for watch in watches.values { watch.cancel() }
    watches.removeAll()
    for watch in eventWatchers.values { watch.cancel() }
    eventWatchers.removeAll()
    object?.unexport()
    object = nil
  }

  private func attach(_ connection: any MessageBus) {
    self.connection = connection
    registry?.connection = connection
    do {
      object = try connection.export(path: ResponderBusAPI.daemonPath, interfaces: [interface()])
    } catch {
      logger.error("responders: cannot export \(ResponderBusAPI.daemonPath): \(error)")
    }
  }

  // MARK: The interface

  /// The exported interface, documented: the daemon's object serves it, and
  /// `responderctl interfaces` writes it to `org.responderd.Daemon1.xml`.
  public func interface() -> DBusInterface {
    DBusInterface(
      ResponderBusAPI.daemonInterface,
      methods: [
        .replyLater(
          "RegisterResponder", in: "oas", out: "u", inNames: ["path", "eventTypes"], outNames: ["id"]
        ) { [weak self] call in self?.register(call) }
        .documented(
          "Registers the caller's object at path, which implements org.responderd.Responder1, as a responder for eventTypes (\"remoteControl\" and/or \"motion\"). Returns the id the other methods take. The registration ends with UnregisterResponder or when the caller leaves the bus. Callers must run as the daemon's user (AccessDenied otherwise); AlreadyRegistered when this connection registered path already; TooManyResponders beyond 16 per connection; InvalidArgs for an unknown event type, one given twice, or a path longer than 1024 bytes."
        ),
        .replyLater("UnregisterResponder", in: "u", inNames: ["id"]) { [weak self] call in
          self?.unregister(call)
        }
        .documented("Removes the responder id (registered by this connection: NotOwner otherwise)."),
        .replyLater("BecomeFirstResponder", in: "u", out: "b", inNames: ["id"], outNames: ["accepted"]) {
          [weak self] call in self?.becomeFirstResponder(call)
        }
        .documented(
          "Makes the responder id the first responder: remote-control and motion events go to it first. Refused (false) when its CanBecomeFirstResponder property is false or absent, or when the current first responder's CanResignFirstResponder is false."
        ),
        .replyLater("ResignFirstResponder", in: "u", out: "b", inNames: ["id"], outNames: ["resigned"]) {
          [weak self] call in self?.resignFirstResponder(call)
        }
        .documented(
          "Gives up first-responder status of id; the previous first responder gets it back. False when its CanResignFirstResponder is false."
        ),
        .replyLater(
          "SetActive", in: "ub", out: "b", inNames: ["id", "active"], outNames: ["firstResponder"]
        ) { [weak self] call in self?.setActive(call) }
        .documented(
          "Says whether the window of the responder id is the active (focused) one, as the application's toolkit tells it (GTK's Gtk.Window:is-active, Qt's QWindow::activeChanged). Active: it becomes first responder, as with BecomeFirstResponder (saying so is its consent: its CanBecomeFirstResponder is not read). The latest claim wins: any other responder that said active before is inactive from then on (the Chain property shows it). A responder that said inactive (or was superseded) gets no motion event, and does not keep the accelerometer open, until it says active again. Remote-control events do not follow focus: they go to the first responder as before. A responder that never calls SetActive keeps the plain rule: the latest BecomeFirstResponder gets every event. Returns whether id is first responder now."
        ),
        .replyLater("WatchEvents") { [weak self] call in self?.watchEvents(call) }
          .documented(
            "Sends EventDispatched and EventDispatchedDetails to the caller (and to no one else: they are unicast signals, for the daemon's own user only) until it calls UnwatchEvents or leaves the bus. LimitsExceeded beyond 64 connections. The caller must read them: every 32 events it is pinged (org.freedesktop.DBus.Peer.Ping, answered by D-Bus libraries as they read); more than 256 events behind it gets none until it answers, and a ping unanswered for 10 s ends its WatchEvents."
          ),
        .replyLater("UnwatchEvents") { [weak self] call in self?.unwatchEvents(call) }
          .documented("Stops the signals WatchEvents asked for."),
        .replyLater(
          "SendEvent", in: "sss", out: "s", inNames: ["type", "subtype", "phase"], outNames: ["handledBy"]
        ) { [weak self] call in self?.sendEvent(call) }
        .documented(
          "Dispatches an event as if a device produced it: type \"remoteControl\" with a subtype such as \"togglePlayPause\" and phase \"\", or type \"motion\", subtype \"motionShake\" and phase \"began\", \"ended\" or \"cancelled\". Returns who handled it (empty when dropped)."
        ),
      ],
      properties: [
        DBusProperty("FirstResponder", get: { [weak self] in self?.registry?.firstResponder?.id ?? 0 })
          .documented("The id of the first responder, 0 when no application is first responder."),
        // Announced as invalidated, not with its value: a registration costs the same however
        // many there are.
        DBusProperty(
          "Chain", signature: "aa{sv}", changeSignal: .invalidates,
          get: { [weak self] in self?.chainValue() ?? .array(elementSignature: "a{sv}", []) }
        )
        .documented(
          "The responder chain in order: registered applications (name, kind \"app\", id, busName, path, eventTypes, firstResponder, focus: \"undeclared\", \"active\" or \"inactive\" as SetActive left it, and passedOver: why its events pass it by, while its connection missed its deadlines), then the built-in handlers (name, kind \"handler\", eventTypes). Changes are announced as invalidated: read it again."
        ),
        DBusProperty("MotionInterest", get: { [weak self] in self?.motionInterest?.isWanted ?? false })
          .documented("Whether anything wants motion events now (the accelerometer is read only then)."),
        DBusProperty(
          "Accelerometer",
          get: { [weak self] in self?.motionInterest?.accelerometer ?? "closed: motion is disabled" }
        )
        .documented(
          "What the accelerometer does now: \"sampled (…)\" with the sensor and its rate, \"kept open …\" for a moment after the last want, \"not there …\" while wanted and missing, \"closed: …\" with why (nobody wants motion, shakes paused while the session is locked or inactive)."
        ),
        DBusProperty(
          "Session", signature: "a{sv}", get: { [weak self] in self?.sessionValue() ?? .vardict([:]) }
        )
        .documented(
          "The user's session as the daemon follows it: state (\"active\", \"locked\" or \"inactive\"), description, logind (whether a logind session is followed), id (the logind session) and foundBy. Inactive: the input devices are released; locked or inactive: no shakes."
        ),
        DBusProperty("Version", changeSignal: .constant, get: { responderdVersion })
          .documented("The daemon's version."),
        DBusProperty(
          "ConfigFile", changeSignal: .constant, get: { [configFile] in configFile }
        )
        .documented("The configuration file the daemon read (empty when it runs on defaults)."),
        DBusProperty(
          "Deadline", changeSignal: .constant,
          get: { [settings] in settings.deadline }
        )
        .documented(
          "Seconds an application has to answer a Responder1 call; a late answer counts as not handled and the event goes on up the chain."
        ),
      ],
      signals: [
        DBusSignalInfo(
          "EventDispatched", signature: "ssds", argumentNames: ["type", "subtype", "timestamp", "handledBy"]
        )
        .documented(
          "Sent for every dispatched event, to the connections that called WatchEvents: its type, subtype, timestamp (seconds since boot, CLOCK_MONOTONIC) and who handled it (empty when dropped)."
        ),
        DBusSignalInfo(
          "EventDispatchedDetails", signature: "ssdsa{sv}",
          argumentNames: ["type", "subtype", "timestamp", "handledBy", "details"]
        )
        .documented(
          "Sent right after EventDispatched, to the same connections, with details: phase (motion), dropReason, source and receivedBy (the responders it reached)."
        ),
      ]
    )
    .documented(
      "responderd's API on /org/responderd/Daemon1 (bus name org.responderd.Daemon1): applications register as responders, become first responder and receive remote-control and motion events through org.responderd.Responder1; every dispatched event is published. Its PropertiesChanged signals are unicast, to the registered applications and the connections that called WatchEvents, never broadcast: another user on a bus shared by users hears none."
    )
  }

  /// The `Session` property.
  private func sessionValue() -> DBusValue {
    let state = session?.state ?? SessionState()
    var entries: [String: DBusValue] = [
      "state": .string(state.word), "description": .string(state.description),
      "logind": .bool(session?.watcher?.isFollowingLogind ?? false),
    ]
    if let id = state.sessionID { entries["id"] = .string(id) }
    if let how = session?.watcher?.foundBy { entries["foundBy"] = .string(how) }
    return .vardict(entries)
  }

  /// The `Chain` property: the registered applications in order, then the built-in handlers.
  /// Applications: name, kind "app", id, busName, path, eventTypes, firstResponder;
  /// handlers: name, kind "handler", eventTypes.
  private func chainValue() -> DBusValue {
    var entries: [DBusValue] = []
    let first = registry?.firstResponder
    for app in registry?.order ?? [] {
      var entry: [String: DBusValue] = [
        "name": .string(app.name), "kind": "app", "id": .uint32(app.id), "busName": .string(app.busName),
        "path": .objectPath(app.path), "eventTypes": Self.names(app.eventTypes),
        "firstResponder": .bool(app === first), "focus": .string(app.focus.rawValue),
      ]
      if let reason = registry?.passedOverReason(app.busName) { entry["passedOver"] = .string(reason) }
      entries.append(.vardict(entry))
    }
    for responder in chain.responders {
      entries.append(
        .vardict([
          "name": .string(responder.handler.name), "kind": "handler",
          "eventTypes": Self.names(responder.handler.eventTypes),
        ]))
    }
    return .array(elementSignature: "a{sv}", entries)
  }

  private static func names(_ types: Set<EventType>) -> DBusValue {
    types.sorted { $0.rawValue < $1.rawValue }.map(\.name).dbusValue
  }

  private func registrationsChanged() {
    guard let registry else { return }
    motionInterest?.applications = registry.motionApplications
    chainChanged = true
    // Once per loop turn, so that a handover (the old first responder resigns, the new one takes
    // over) is announced as one change, without the state in between.
    guard !changeAnnouncementScheduled else { return }
    changeAnnouncementScheduled = true
    scheduler.schedule(after: 0) { [weak self] in self?.announceChanges() }
  }

  private func announceChanges() {
    changeAnnouncementScheduled = false
    guard let registry else { return }
    var changed: [String] = []
    let first = registry.firstResponder?.id ?? 0
    if first != lastFirstResponder {
      lastFirstResponder = first
      changed.append("FirstResponder")
    }
    if chainChanged {
      chainChanged = false
      changed.append("Chain")
    }
    if !changed.isEmpty {
      try? object?.propertiesChanged(
        interface: ResponderBusAPI.daemonInterface, changed, destinations: listeners)
    }
  }

  // MARK: Methods

  /// Runs `body` with the caller (its pid names the app) when it runs as the daemon's user, as
  /// the bus's caller check already made sure; answers AccessDenied otherwise.
  private func checkCaller(_ call: DBusMethodCall, then body: @escaping (SameUserCallers.Caller) -> Void) {
    guard let callers = bus?.callers else { return call.reply(error: .disconnected()) }
    callers.check(call, then: body)
  }

  /// Runs `body` with the responder `id` when the caller is its owner.
  private func checkOwner(_ call: DBusMethodCall, then body: @escaping (AppResponder) -> Void) {
    let id = call.arguments[0].uint32 ?? 0
    checkCaller(call) { [weak self] _ in
      guard let app = self?.registry?.app(id) else {
        return call.reply(
          error: DBusError(
            ResponderBusAPI.ErrorName.unknownResponder, "no responder is registered with id \(id)"))
      }
      guard app.busName == call.sender else {
        self?.logger.notice(
          "responders: refused \(call.member)(\(id)) from \(call.sender.loggable): not its owner")
        return call.reply(
          error: DBusError(
            ResponderBusAPI.ErrorName.notOwner,
            "responder \(id) was registered by another connection: only that connection may act on it"))
      }
      body(app)
    }
  }

  private func register(_ call: DBusMethodCall) {
    let path = call.arguments[0].objectPath ?? "/"
    let names = call.arguments[1].stringArray ?? []
    guard path.utf8.count <= ResponderBusAPI.longestResponderPath else {
      return call.reply(
        error: .invalidArgs(
          "the object path is \(path.utf8.count) bytes long: at most \(ResponderBusAPI.longestResponderPath)")
      )
    }
    var types = Set<EventType>()
    for name in names {
      guard let type = EventType(name: name), ResponderBusAPI.registrableEventTypes.contains(type) else {
        return call.reply(
          error: .invalidArgs(
            "unknown event type '\(name.loggable)': applications register for remoteControl and/or motion"))
      }
      guard types.insert(type).inserted else {
        return call.reply(error: .invalidArgs("the event type '\(name)' is given twice: name each once"))
      }
    }
    guard !types.isEmpty else {
      return call.reply(error: .invalidArgs("no event types: register for remoteControl and/or motion"))
    }
    checkCaller(call) { [weak self] caller in
      guard let self, let registry = self.registry else { return }
      let sender = call.sender
      guard registry.registrationCount(of: sender) < ResponderBusAPI.maximumRespondersPerConnection else {
        return call.reply(
          error: DBusError(
            ResponderBusAPI.ErrorName.tooManyResponders,
            "\(sender) already registered \(ResponderBusAPI.maximumRespondersPerConnection) responders, as many as one connection may; unregister one first"
          ))
      }
      guard !registry.isRegistered(sender, at: path) else {
        return call.reply(
          error: DBusError(
            ResponderBusAPI.ErrorName.alreadyRegistered,
            "\(sender) already registered a responder at \(path.loggable)"
          ))
      }
      let app = registry.add(
        busName: sender, path: path, eventTypes: types, processName: caller.pid.flatMap(processName(of:)),
        pid: caller.pid)
      self.logger.info(
        "responders: \(app.name) registered (\(sender.loggable) \(path.loggable)) for \(Self.names(types).stringArray ?? [])"
      )
      self.watch(sender)
      call.reply([.uint32(app.id)])
    }
  }

  /// Removes the responders of `busName` as soon as it leaves the bus.
  private func watch(_ busName: String) {
    guard watches[busName] == nil, let connection else { return }
    watches[busName] = connection.watchNameOwner(busName) { [weak self] owner in
      guard owner == nil, let self else { return }
      self.watches.removeValue(forKey: busName)?.cancel()
      self.registry?.removeAll(of: busName, reason: "\(busName) left the bus")
    }
  }

  private func unwatchIfUnused(_ busName: String) {
    guard registry?.apps.contains(where: { $0.busName == busName }) != true else { return }
    watches.removeValue(forKey: busName)?.cancel()
  }

  private func unregister(_ call: DBusMethodCall) {
    checkOwner(call) { [weak self] app in
      self?.registry?.remove(app, reason: "unregistered")
      self?.unwatchIfUnused(app.busName)
      call.reply([])
    }
  }

  private func becomeFirstResponder(_ call: DBusMethodCall) {
    checkOwner(call) { [weak self] app in
      self?.takeFirstResponder(app) { call.reply([.bool($0)]) }
    }
  }

  /// Makes `app` first responder when its `CanBecomeFirstResponder` and the current first
  /// responder's `CanResignFirstResponder` allow; `body` gets whether it is first responder then.
  /// With `whileActive` (`SetActive`: saying its window is active is its consent, its property is
  /// not read), it gives up when the app's window stopped being active meanwhile.
  private func takeFirstResponder(
    _ app: AppResponder, whileActive: Bool = false, then body: @escaping (Bool) -> Void
  ) {
    guard let registry else { return body(false) }
    if registry.firstResponder === app { return body(true) }
    let readCanBecome: (@escaping (Bool, Bool) -> Void) -> Void =
      whileActive
      ? { $0(true, true) }
      : { [weak self] in self?.readFlag("CanBecomeFirstResponder", of: app, default: false, then: $0) }
    readCanBecome { [weak self] canBecome, answered in
      guard let self else { return body(false) }
      app.canBecome = canBecome
      guard canBecome else {
        if answered {
          self.logger.info("responders: \(app.name) cannot become first responder (CanBecomeFirstResponder)")
        }
        return body(false)
      }
      let finish = {
        // Another application claimed the active window while the flags were read: it wins.
        if whileActive, app.focus != .active { return body(registry.firstResponder === app) }
        let accepted = registry.makeFirstResponder(app)
        if accepted { self.logger.info("responders: \(app.name) is first responder") }
        body(accepted)
      }
      guard let current = registry.firstResponder, current !== app else { return finish() }
      self.readFlag("CanResignFirstResponder", of: current, default: true) { canResign, _ in
        current.canResign = canResign
        if !canResign {
          self.logger.info("responders: \(current.name) refuses to resign first responder for \(app.name)")
        }
        finish()
      }
    }
  }

  private func setActive(_ call: DBusMethodCall) {
    let active = call.arguments[1].bool ?? false
    checkOwner(call) { [weak self] app in
      guard let self, let registry = self.registry else { return }
      let before = app.focus
      let now = self.scheduler.now
      // Per application, at a bounded rate: one whose focus flaps fills no log.
      for other in registry.setActive(app, active) {
        guard let verdict = other.focusLines.check(at: now) else { continue }
        self.logger.info(
          "\(verdict.text("responders: \(other.name)'s window is inactive: \(app.name) says its window is active"))"
        )
      }
      if app.focus != before, let verdict = app.focusLines.check(at: now) {
        self.logger.info("\(verdict.text("responders: \(app.name)'s window is \(app.focus.rawValue)"))")
      }
      guard active else { return call.reply([.bool(registry.firstResponder === app)]) }
      self.takeFirstResponder(app, whileActive: true) { call.reply([.bool($0)]) }
    }
  }

  private func resignFirstResponder(_ call: DBusMethodCall) {
    checkOwner(call) { [weak self] app in
      guard let self, let registry = self.registry else { return }
      guard registry.firstResponder === app else {
        return call.reply([.bool(registry.resignFirstResponder(app))])
      }
      self.readFlag("CanResignFirstResponder", of: app, default: true) { canResign, _ in
        app.canResign = canResign
        call.reply([.bool(registry.resignFirstResponder(app))])
      }
    }
  }

  /// Reads a boolean property of an application's responder object, with the deadline; `default`
  /// when it is absent, unreadable or late, which is logged as such (not as the app's answer).
  /// `body` gets the value and whether the application gave it.
  private func readFlag(
    _ property: String, of app: AppResponder, default value: Bool,
    then body: @escaping (_ flag: Bool, _ answered: Bool) -> Void
  ) {
    guard let connection, let registry else { return body(value, false) }
    let deadline = registry.deadline
    connection.getProperty(
      property, interface: ResponderBusAPI.responderInterface, path: app.path, destination: app.busName,
      timeout: deadline
    ) { [weak self] result in
      switch result {
      case .success(.bool(let flag)):
        body(flag, true)
      case .success(let other):
        self?.logger.notice(
          "responders: \(app.name)'s \(property) is '\(other.signature)', not a boolean; taken as \(value)")
        body(value, false)
      case .failure(let error):
        let what =
          error.name == DBusError.Name.noReply
          ? "did not answer \(property) within \(formatMilliseconds(deadline))"
          : "\(property) could not be read (\(error.message.loggable))"
        self?.logger.notice("responders: \(app.name) \(what); taken as \(value)")
        body(value, false)
      }
    }
  }

  /// The most connections `WatchEvents` serves at once.
  static let maximumEventWatchers = 64

  private func watchEvents(_ call: DBusMethodCall) {
    checkCaller(call) { [weak self] _ in
      guard let self, let connection = self.connection else { return call.reply(error: .disconnected()) }
      let sender = call.sender
      guard self.eventWatchers[sender] == nil else { return call.reply([]) }
      guard self.eventWatchers.count < Self.maximumEventWatchers else {
        return call.reply(
          error: DBusError(
            "org.freedesktop.DBus.Error.LimitsExceeded",
            "\(Self.maximumEventWatchers) connections watch the events already, the most responderd serves"))
      }
      self.eventWatchers[sender] = connection.watchNameOwner(sender) { [weak self] owner in
        guard owner == nil else { return }
        self?.eventWatchers.removeValue(forKey: sender)?.cancel()
      }
      call.reply([])
    }
  }

  private func unwatchEvents(_ call: DBusMethodCall) {
    checkCaller(call) { [weak self] _ in
      self?.eventWatchers.removeValue(forKey: call.sender)?.cancel()
      call.reply([])
    }
  }

  private func sendEvent(_ call: DBusMethodCall) {
    let typeName = call.arguments[0].string ?? ""
    let subtypeName = call.arguments[1].string ?? ""
    let phaseName = call.arguments[2].string ?? ""
    let subtype: EventSubtype
    var phase = MotionPhase.began
    switch EventType(name: typeName) {
    case .remoteControl?:
      guard let parsed = EventSubtype(name: subtypeName), parsed.eventType == .remoteControl else {
        let valid = EventSubtype.remoteControlSubtypes.map(\.name).joined(separator: ", ")
        return call.reply(
          error: .invalidArgs("unknown remoteControl subtype '\(subtypeName.loggable)'; one of: \(valid)"))
      }
      guard phaseName.isEmpty else {
        return call.reply(error: .invalidArgs("a phase is for motion events only; give '' for remoteControl"))
      }
      subtype = parsed
    case .motion?:
      guard subtypeName.isEmpty || EventSubtype(name: subtypeName) == .motionShake || subtypeName == "shake"
      else {
        return call.reply(
          error: .invalidArgs("unknown motion subtype '\(subtypeName.loggable)'; motionShake is the only one")
        )
      }
      if !phaseName.isEmpty {
        guard let parsed = MotionPhase(rawValue: phaseName.lowercased()) else {
          return call.reply(
            error: .invalidArgs(
              "unknown motion phase '\(phaseName.loggable)'; one of: began, ended, cancelled"))
        }
        phase = parsed
      }
      subtype = .motionShake
    default:
      return call.reply(
        error: .invalidArgs("cannot send '\(typeName.loggable)' events: remoteControl or motion"))
    }
    checkCaller(call) { [weak self] _ in
      guard let self else { return }
      let source = "dbus \(call.sender)"
      let event = Event(
        type: subtype.eventType ?? .remoteControl, subtype: subtype, timestamp: self.scheduler.now,
        source: source)
      self.pendingSends.append(PendingSend(source: source, timestamp: event.timestamp, call: call))
      self.events.post(event, phase: phase)
    }
  }

  // MARK: Dispatches

  private func published(_ record: DispatchRecord) {
    // The chain as `responderctl chain` lists it: the core's application object, last in every
    // chain (as UIApplication), is no responder a user registered or configured.
    let receivedBy = record.receivedBy.filter { $0 != events.application.responderName }
    var details: [String: DBusValue] = [
      "source": .string(record.source), "receivedBy": receivedBy.dbusValue,
    ]
    if let phase = record.motionPhase { details["phase"] = .string(phase.rawValue) }
    if let reason = record.dropReason { details["dropReason"] = .string(reason) }
    let arguments: [DBusValue] = [
      .string(record.type.name), .string(record.subtype.name), .double(record.timestamp),
      .string(record.handledBy ?? ""),
    ]
    // The documented 4-argument signal, then the same with details (motion phase, drop reason,
    // source, path through the chain) for tools such as `responderctl monitor`: unicast, to the
    // connections that asked (WatchEvents, checked as every call is), never broadcast where any
    // user of a shared bus could listen.
    for watcher in events.eventWatchers where watcherFlows.admit(watcher, on: connection) {
      try? object?.emit(
        interface: ResponderBusAPI.daemonInterface, signal: "EventDispatched", arguments: arguments,
        destination: watcher)
      try? object?.emit(
        interface: ResponderBusAPI.daemonInterface, signal: "EventDispatchedDetails",
        arguments: arguments + [.vardict(details)], destination: watcher)
    }
    if let index = pendingSends.firstIndex(where: {
      $0.source == record.source && $0.timestamp == record.timestamp
    }) {
      let send = pendingSends.remove(at: index)
      send.call.reply([.string(record.handledBy ?? "")])
    }
  }
}

/// The name of a process (`/proc/PID/comm`), nil when it cannot be read.
func processName(of pid: UInt32) -> String? {
  guard pid > 0, let text = try? readTextFile("/proc/\(pid)/comm") else { return nil }
  let name = text.split(separator: "\n").first.map(String.init) ?? ""
  return name.isEmpty ? nil : name.replacingSpaces()
}

extension String {
  /// The text with spaces and `#` replaced by `-` (names in records are single words).
  fileprivate func replacingSpaces() -> String {
    String(map { $0 == " " || $0 == "#" ? "-" : $0 })
  }
}
