import DBus
import EventTime
import Logging
import PlayerSelection
import ResponderCore

/// What became of a remote-control event given to the controller.
public enum ControlOutcome: Sendable, Equatable, CustomStringConvertible {
  /// The player answered the call: the event is handled.
  case sent(player: String, method: String)
  /// Nothing was done (no usable player, a missing capability, a failed or late call): the
  /// event moves on down the chain.
  case notHandled(String)

  public var isHandled: Bool {
    if case .sent = self { return true }
    return false
  }

  public var description: String {
    switch self {
    case .sent(let player, let method): "\(method) sent to \(player)"
    case .notHandled(let reason): "not handled: \(reason)"
    }
  }
}

/// Turns remote-control events into MPRIS calls on the selected player (the `mpris` handler's
/// logic): togglePlayPause, play, pause, stop, next and previous become the matching method when
/// the player's capabilities allow it; begin/end seeking become `Seek` steps while held.
///
/// Every call has a deadline (`callDeadline`): a hung or vanished player makes the event move on
/// after at most that long, and a player that missed it is passed over until it answers again.
public final class PlayerController {
  public let tracker: PlayerTracker
  public var settings: PlayerSettings { tracker.settings }
  private var seeking: SeekSession?
  private let logger: Logger
  /// Told of each Player method just before it is sent to a player (the proxy player says what it
  /// will do first, see `ProxyPlayer`).
  private var callObservers: [(MPRISPlayer, String) -> Void] = []

  /// A held seek: steps every `seekInterval` until the matching end event.
  final class SeekSession {
    let player: String
    let forward: Bool
    var timer: ScheduledTimer?
    var inFlight: DBusPendingCall?
    var nextStep: Seconds
    var steps = 0
    init(player: String, forward: Bool, start: Seconds) {
      self.player = player
      self.forward = forward
      self.nextStep = start
    }
  }

  public init(tracker: PlayerTracker, logger: Logger = Logger(label: "responderd")) {
    self.tracker = tracker
    self.logger = logger
  }

  /// Adds an observer told of each Player method just after it is sent to a player (before any
  /// reply).
  public func addCallObserver(_ observer: @escaping (_ player: MPRISPlayer, _ method: String) -> Void) {
    callObservers.append(observer)
  }

  /// Whether a seek is being held, and on which player.
  public var seekingPlayer: String? { seeking?.player }

  /// Performs the event's action on the selected player; `completion` runs once, later or at once.
  public func perform(_ subtype: EventSubtype, completion: @escaping (ControlOutcome) -> Void) {
    tracker.probeUnresponsive()
    switch subtype {
    case .remoteControlBeginSeekingForward: beginSeeking(forward: true, completion: completion)
    case .remoteControlBeginSeekingBackward: beginSeeking(forward: false, completion: completion)
    case .remoteControlEndSeekingForward: endSeeking(forward: true, completion: completion)
    case .remoteControlEndSeekingBackward: endSeeking(forward: false, completion: completion)
    default:
      switch plan(subtype) {
      case .failure(let reason): completion(.notHandled(reason.text))
      case .success(let (player, method)): call(player, method, completion: completion)
      }
    }
  }

  private struct Reason: Error { var text: String }

  /// The selected player, if it can be called.
  private func usablePlayer() -> Result<MPRISPlayer, Reason> {
    guard let connection = tracker.connection, connection.isConnected else {
      return .failure(Reason(text: "not connected to the session bus"))
    }
    guard let player = tracker.selected else { return .failure(Reason(text: tracker.selector.reason)) }
    guard player.can(.control) else {
      return .failure(Reason(text: "\(tracker.displayName(player)) has CanControl false"))
    }
    return .success(player)
  }

  /// The method for a discrete event on the selected player, respecting its capabilities.
  private func plan(_ subtype: EventSubtype) -> Result<(MPRISPlayer, String), Reason> {
    let player: MPRISPlayer
    switch usablePlayer() {
    case .failure(let reason): return .failure(reason)
    case .success(let usable): player = usable
    }
    func need(_ capability: MPRISCapability, _ method: String) -> Result<(MPRISPlayer, String), Reason> {
      player.can(capability)
        ? .success((player, method))
        : .failure(Reason(text: "\(tracker.displayName(player)) has \(capability.rawValue) false"))
    }
    switch subtype {
    case .remoteControlTogglePlayPause:
      // PlayPause has no effect when CanPause is false (MPRIS): then only Play can start it.
      if player.playbackStatus == .playing { return need(.pause, "PlayPause") }
      return player.can(.pause) ? need(.play, "PlayPause") : need(.play, "Play")
    case .remoteControlPlay: return need(.play, "Play")
    case .remoteControlPause: return need(.pause, "Pause")
    case .remoteControlStop: return .success((player, "Stop"))
    case .remoteControlNextTrack: return need(.goNext, "Next")
    case .remoteControlPreviousTrack: return need(.goPrevious, "Previous")
    default: return .failure(Reason(text: "\(subtype) is not a player action"))
    }
  }

  /// Calls a Player method with the deadline; a missed deadline marks the player unresponsive.
  @discardableResult
  private func call(
    _ player: MPRISPlayer, _ method: String, arguments: [DBusValue] = [],
    completion: @escaping (ControlOutcome) -> Void
  ) -> DBusPendingCall? {
    guard let connection = tracker.connection else {
      completion(.notHandled("not connected to the session bus"))
      return nil
    }
    let id = player.uniqueName
    let deadline = settings.callDeadline
    // Named once the call is on its way (the reply never comes before `call` returns).
    var name = id
    let pending = connection.call(
      destination: id, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface, method: method,
      arguments: arguments, timeout: deadline
    ) { [weak self] result in
      switch result {
      case .success:
        completion(.sent(player: name, method: method))
      case .failure(let error):
        let late = error.name == DBusError.Name.noReply || error.name == DBusError.Name.timeout
        if late, let self, self.tracker.players[id] != nil {
          self.tracker.markUnresponsive(
            id, reason: "no answer to \(method) within \(Int(deadline * 1000)) ms")
        }
        completion(.notHandled("\(name) (\(id)) failed \(method): \(error.message)"))
      }
    }
    name = tracker.displayName(player)
    // The observers after the call is written, so that what they send (the proxy's
    // PropertiesChanged) does not delay it; the reply cannot have come yet.
    for observer in callObservers { observer(player, method) }
    return pending
  }

  // MARK: Direct calls (the proxy player's Seek and SetPosition)

  /// Calls `method` on the selected player when it can seek (for the proxy's Seek/SetPosition).
  public func forwardSeek(
    _ method: String, arguments: [DBusValue], completion: @escaping (ControlOutcome) -> Void
  ) {
    switch usablePlayer() {
    case .failure(let reason): completion(.notHandled(reason.text))
    case .success(let player):
      guard player.can(.seek) else {
        return completion(.notHandled("\(tracker.displayName(player)) has CanSeek false"))
      }
      call(player, method, arguments: arguments, completion: completion)
    }
  }

  // MARK: Seeking while held

  private func beginSeeking(forward: Bool, completion: @escaping (ControlOutcome) -> Void) {
    stopSeeking()
    let player: MPRISPlayer
    switch usablePlayer() {
    case .failure(let reason): return completion(.notHandled(reason.text))
    case .success(let usable): player = usable
    }
    guard player.can(.seek) else {
      return completion(.notHandled("\(tracker.displayName(player)) has CanSeek false"))
    }
    let session = SeekSession(player: player.uniqueName, forward: forward, start: tracker.scheduler.now)
    seeking = session
    // The first step now: its answer decides the event; later steps follow on the scheduler.
    step(session, completion: completion)
  }

  private func endSeeking(forward: Bool, completion: @escaping (ControlOutcome) -> Void) {
    guard let session = seeking, session.forward == forward else {
      return completion(.notHandled("not seeking \(forward ? "forward" : "backward")"))
    }
    stopSeeking()
    let name = tracker.players[session.player].map(tracker.displayName) ?? session.player
    completion(.sent(player: name, method: "Seek (\(session.steps) steps, stopped)"))
  }

  /// Stops seeking at once: no step is sent after this (one already sent is not recalled).
  public func stopSeeking() {
    guard let session = seeking else { return }
    session.timer?.cancel()
    session.timer = nil
    seeking = nil
  }

  private func step(_ session: SeekSession, completion: ((ControlOutcome) -> Void)? = nil) {
    guard seeking === session else { return }
    session.nextStep += settings.seekInterval
    session.timer = tracker.scheduler.schedule(at: session.nextStep) { [weak self, weak session] in
      guard let self, let session else { return }
      self.step(session)
    }
    // A step still unanswered: skip this one rather than pile calls up on a slow player.
    if session.inFlight != nil { return }
    guard let player = tracker.players[session.player] else {
      stopSeeking()
      completion?(.notHandled("the player left"))
      return
    }
    let offset = Int64((settings.seekStep * 1_000_000).rounded()) * (session.forward ? 1 : -1)
    session.steps += 1
    session.inFlight = call(player, "Seek", arguments: [.int64(offset)]) {
      [weak self, weak session] outcome in
      guard let self, let session else { return }
      session.inFlight = nil
      if !outcome.isHandled, self.seeking === session {
        self.logger.notice("mpris: seeking stopped: \(outcome)")
        self.stopSeeking()
      }
      completion?(outcome)
    }
  }
}
