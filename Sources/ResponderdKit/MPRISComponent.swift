import DBus
import EventTime
import Logging
import MPRIS
import PlayerSelection
import ResponderCore

/// MPRIS in the service: tracks the players of the session bus, provides the `mpris` handler,
/// owns the proxy player `org.mpris.MediaPlayer2.responderd`, and exports
/// `/org/responderd/Daemon1/Players` (`org.responderd.Players1`) for `responderctl players`.
public final class MPRISComponent: ServiceComponent {
  public let componentName = "mpris"
  /// The object `responderctl players` asks.
  public static let playersPath = "/org/responderd/Daemon1/Players"
  /// The interface of that object.
  public static let playersInterface = "org.responderd.Players1"

  /// The MPRIS players of the session bus.
  public let tracker: PlayerTracker
  /// Performs remote-control events on the selected player (what the `mpris` handler calls).
  public let controller: PlayerController
  /// The proxy player, once the bus connection exists (nil when `proxy = false`).
  public private(set) var proxy: ProxyPlayer?
  private var playersObject: DBusExportedObject?
  private let logger: Logger
  private let events: ServiceEvents
  private let scheduler: any Scheduler
  private var lastLoggedSelection: String??
  /// Recognizes proxy calls that repeat a press a device made.
  private var echoes = ProxyEchoFilter()

  private let bus: BusComponent?

  /// Creates the tracker with the config's `[players]`; the players are those of `bus` (none
  /// without it); the proxy player's calls are posted to `events`.
  public init(
    settings: PlayerSettings, bus: BusComponent?, events: ServiceEvents, scheduler: any Scheduler,
    logger: Logger
  ) {
    self.bus = bus
    self.events = events
    self.scheduler = scheduler
    self.logger = logger
    tracker = PlayerTracker(settings: settings, scheduler: scheduler, logger: logger)
    controller = PlayerController(tracker: tracker, logger: logger)
  }

  public var dependencies: [ServiceComponent] { bus.map { [$0] } ?? [] }

  /// The `mpris` handler: the chain's events performed on the selected player.
  public var handlers: HandlerRegistry {
    HandlerRegistry("mpris") { [controller] context in
      MPRISHandler(controller: controller, logger: context.logger)
    }
  }

  public func start() throws {
    guard let bus else {
      logger.notice("mpris: no bus in this service; the mpris handler has no player")
      return
    }
    let settings = tracker.settings
    tracker.addObserver { [weak self] change in
      if case .selection = change { self?.selectionChanged() }
    }
    bus.withConnection { [weak self] connection in
      guard let self else { return }
      self.tracker.attach(to: connection)
      connection.addObserver { [weak self] event in
        switch event {
        case .connected: self?.tracker.refresh()
        case .disconnected:
          // While the bus is away there is no player.
          self?.controller.stopSeeking()
          self?.tracker.connectionLost()
        case .nameAcquired, .nameLost: break
        }
      }
      self.exportPlayersObject(on: connection)
      if settings.proxy {
        do {
          self.proxy = try ProxyPlayer(
            connection: connection, tracker: self.tracker, controller: self.controller, logger: self.logger
          ) { [weak self] subtype in
            self?.proxyCalled(subtype)
          }
        } catch {
          self.logger.error("mpris: cannot export the proxy player: \(error)")
        }
      }
    }
    let scheduler = self.scheduler
    events.addDeviceEventFilter { [weak self] event, sincePress in
      guard let self, settings.proxy, event.type == .remoteControl else { return nil }
      let now = scheduler.now
      guard
        let call = self.echoes.devicePosted(
          event.subtype, source: event.source, at: now, sincePress: sincePress)
      else {
        return nil
      }
      let reason =
        "duplicate of the \(call.subtype.name) called on \(MPRISNames.responderd) \(Self.milliseconds(now - call.dispatchedAt)) ms earlier (the same press, which the desktop saw first)"
      self.logger.debug("mpris: \(event.subtype.name) from \(event.source) is a \(reason)")
      return reason
    }
    var summary = "mpris: policy \(settings.policy)"
    if !settings.priority.isEmpty { summary += ", priority \(settings.priority.joined(separator: ", "))" }
    if !settings.ignore.isEmpty { summary += ", ignoring \(settings.ignore.joined(separator: ", "))" }
    logger.info("\(summary)\(settings.proxy ? ", proxy player \(MPRISNames.responderd)" : "")")
  }

  public func stop() {
    controller.stopSeeking()
    proxy?.close()
    proxy = nil
  }

  /// A call on the proxy player: an event in the chain, unless it repeats a press a device made
  /// (the desktop saw the same key): then it is published as a duplicate and not dispatched.
  private func proxyCalled(_ subtype: EventSubtype) {
    let now = scheduler.now
    if let press = echoes.proxyCalled(subtype, at: now) {
      let reason =
        "duplicate of the \(press.subtype.name) from \(press.source) \(Self.milliseconds(now - press.dispatchedAt)) ms earlier (the same press, called by the desktop through \(MPRISNames.responderd))"
      logger.debug("mpris: proxy call \(subtype.name) is a \(reason)")
      events.publishUndispatched(
        DispatchRecord(
          type: .remoteControl, subtype: subtype, timestamp: now, source: "mpris-proxy", dropReason: reason))
      return
    }
    events.post(.remoteControl(subtype, timestamp: now, source: "mpris-proxy"))
  }

  private static func milliseconds(_ seconds: Seconds) -> Int { Int((seconds * 1000).rounded()) }

  private func selectionChanged() {
    let selector = tracker.selector
    // To the connections that called Daemon1.WatchEvents (of the user, as every caller), each
    // alone: another user on a shared bus never hears the players' names.
    for watcher in events.eventWatchers {
      try? playersObject?.emit(
        interface: Self.playersInterface, signal: "SelectionChanged",
        arguments: [.string(selector.selectedID ?? ""), .string(selector.reason)], destination: watcher)
    }
    guard lastLoggedSelection != .some(selector.selectedID) else { return }
    lastLoggedSelection = .some(selector.selectedID)
    if let selected = selector.selected {
      logger.info("players: controlling \(selected.displayName) (\(selected.id)): \(selector.reason)")
    } else {
      logger.info("players: none to control: \(selector.reason)")
    }
  }

  private func exportPlayersObject(on connection: any MessageBus) {
    let tracker = self.tracker
    let interface = DBusInterface(
      Self.playersInterface,
      methods: [
        // Players not selected have their latest properties read first (only the selected
        // player's are kept current).
        .replyLater("GetPlayers", out: "a{sv}aa{sv}", outNames: ["summary", "players"]) { call in
          tracker.readUnreadProperties { call.reply(tracker.report().dbusArguments) }
        }
      ],
      properties: [
        DBusProperty("Selected", changeSignal: .invalidates, get: { tracker.selector.selectedID ?? "" }),
        DBusProperty("Policy", changeSignal: .constant, get: { tracker.settings.policy.rawValue }),
      ],
      signals: [
        DBusSignalInfo("SelectionChanged", signature: "ss", argumentNames: ["unique_name", "reason"])
      ])
    do {
      playersObject = try connection.export(path: Self.playersPath, interfaces: [interface])
    } catch {
      logger.error("mpris: cannot export \(Self.playersPath): \(error)")
    }
  }
}
