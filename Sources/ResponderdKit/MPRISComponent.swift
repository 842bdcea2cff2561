import DBus
import Logging
import MPRIS
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
  private var lastLoggedSelection: String??

  /// Creates the tracker and registers the `mpris` handler factory of `service`.
  public init(service: Service) {
    logger = service.logger
    tracker = PlayerTracker(
      settings: service.config.players, scheduler: service.application.scheduler, logger: service.logger)
    controller = PlayerController(tracker: tracker, logger: service.logger)
    service.handlerFactories["mpris"] = { [controller] service in
      MPRISHandler(controller: controller, logger: service.logger)
    }
  }

  public func start(in service: Service) throws {
    guard let bus = service.bus else {
      logger.notice("mpris: no bus in this service; the mpris handler has no player")
      return
    }
    let settings = tracker.settings
    tracker.addObserver { [weak self] change in
      if case .selection = change { self?.selectionChanged() }
    }
    bus.withConnection { [weak self, weak service] connection in
      guard let self, let service else { return }
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
        let application = service.application
        do {
          self.proxy = try ProxyPlayer(
            connection: connection, tracker: self.tracker, controller: self.controller, logger: self.logger
          ) { subtype in
            application.post(
              .remoteControl(subtype, timestamp: application.scheduler.now, source: "mpris-proxy"))
          }
        } catch {
          self.logger.error("mpris: cannot export the proxy player: \(error)")
        }
      }
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

  private func selectionChanged() {
    let selector = tracker.selector
    try? playersObject?.emit(
      interface: Self.playersInterface, signal: "SelectionChanged",
      arguments: [.string(selector.selectedID ?? ""), .string(selector.reason)])
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
