import DBus
import EventTime
import Logging
import ResponderCore

/// responderd's own MPRIS player, `org.mpris.MediaPlayer2.responderd` at `/org/mpris/MediaPlayer2`.
///
/// Desktop media widgets, playerctl, KDE Connect and BlueZ's mpris-proxy see one player that stands
/// for whatever responderd controls:
/// - `Play`, `Pause`, `PlayPause`, `Stop`, `Next`, `Previous` become remote-control events
///   (play, pause, togglePlayPause, stop, nextTrack, previousTrack) posted to the application, so
///   they enter the chain at the first responder like a key press; the call is answered at once.
/// - `Seek` and `SetPosition` go straight to the selected player, with their exact offset or
///   position: a remote-control event cannot carry an offset (UIKit has only begin/end seeking),
///   and turning a seek-bar jump into one fixed step would be wrong. The reply is the player's.
/// - Properties mirror the selected player (PlaybackStatus, Metadata, Position, Volume, Rate,
///   rates, CanSeek) and PropertiesChanged is emitted when they change, including when the
///   selection changes; `Seeked` is re-emitted. Just before responderd asks the selected player to
///   play, PlaybackStatus says `Playing` (until the player says what it does, or for at most
///   `playPredictionTime`): a desktop that follows the player that starts playing
///   (gsd-media-keys switches to it when the one it calls is not playing) hears it from the proxy
///   first, and keeps calling the proxy, where its calls for a press responderd read from the
///   device too are recognized as duplicates. CanPlay, CanPause, CanGoNext, CanGoPrevious and
///   CanControl are always true: the calls become events that any handler of the chain may take
///   (a `command` entry works with no player at all).
public final class ProxyPlayer {
  public let connection: any MessageBus
  public let tracker: PlayerTracker
  public let controller: PlayerController
  /// The exported object.
  public private(set) var object: DBusExportedObject?
  private let post: (EventSubtype) -> Void
  private var emitted: [String: DBusValue] = [:]
  private var mirroredPlayer: String?
  private let logger: Logger
  /// The player responderd just asked to play, while it has not said what it does: PlaybackStatus
  /// reads `Playing` meanwhile.
  private var predictedPlaying: String?
  private var predictionTimer: ScheduledTimer?
  /// How long PlaybackStatus may read `Playing` before the player says it plays.
  public static let playPredictionTime: Seconds = 1

  /// The Player properties mirrored from the selected player, with PropertiesChanged.
  static let mirroredProperties = [
    "PlaybackStatus", "Metadata", "Volume", "Rate", "MinimumRate", "MaximumRate", "CanSeek",
  ]

  /// Exports the object and asks for the name (again after each reconnection). `post` turns a
  /// method call into an event (`application.post(.remoteControl(subtype, …))`).
  public init(
    connection: any MessageBus, tracker: PlayerTracker, controller: PlayerController,
    logger: Logger = Logger(label: "responderd"), post: @escaping (EventSubtype) -> Void
  ) throws(DBusError) {
    self.connection = connection
    self.tracker = tracker
    self.controller = controller
    self.post = post
    self.logger = logger
    object = try connection.export(
      path: MPRISNames.objectPath, interfaces: [rootInterface(), playerInterface()])
    emitted = currentValues()
    mirroredPlayer = tracker.selector.selectedID
    tracker.addObserver { [weak self] change in self?.trackerChanged(change) }
    controller.addCallObserver { [weak self] player, method in self?.willCall(player, method) }
    connection.requestName(MPRISNames.responderd) { [weak self] result in
      switch result {
      case .success(let outcome) where outcome.isOwner: break
      case .success:
        self?.logger.warning("mpris: \(MPRISNames.responderd) is owned by another connection")
      case .failure(let error):
        self?.logger.error("mpris: cannot own \(MPRISNames.responderd): \(error.message)")
      }
    }
  }

  /// Releases the name and removes the object.
  public func close() {
    predictionTimer?.cancel()
    predictionTimer = nil
    connection.releaseName(MPRISNames.responderd)
    object?.unexport()
    object = nil
  }

  // MARK: Interfaces

  private func rootInterface() -> DBusInterface {
    DBusInterface(
      MPRISNames.rootInterface,
      methods: [
        DBusMethod("Raise") { _ in [] },
        DBusMethod("Quit") { _ in [] },
      ],
      properties: [
        DBusProperty("CanQuit", changeSignal: .constant, get: { false }),
        DBusProperty("CanRaise", changeSignal: .constant, get: { false }),
        DBusProperty("HasTrackList", changeSignal: .constant, get: { false }),
        DBusProperty("Identity", changeSignal: .constant, get: { "responderd" }),
        DBusProperty("SupportedUriSchemes", changeSignal: .constant, get: { [String]() }),
        DBusProperty("SupportedMimeTypes", changeSignal: .constant, get: { [String]() }),
      ])
  }

  private func playerInterface() -> DBusInterface {
    func event(_ name: String, _ subtype: EventSubtype) -> DBusMethod {
      DBusMethod(name) { [weak self] _ in
        self?.post(subtype)
        return []
      }
    }
    return DBusInterface(
      MPRISNames.playerInterface,
      methods: [
        event("Next", .remoteControlNextTrack),
        event("Previous", .remoteControlPreviousTrack),
        event("Pause", .remoteControlPause),
        event("PlayPause", .remoteControlTogglePlayPause),
        event("Stop", .remoteControlStop),
        event("Play", .remoteControlPlay),
        .replyLater("Seek", in: "x", inNames: ["Offset"]) { [weak self] call in
          self?.forward("Seek", call)
        },
        .replyLater("SetPosition", in: "ox", inNames: ["TrackId", "Position"]) { [weak self] call in
          self?.forward("SetPosition", call)
        },
        DBusMethod("OpenUri", in: "s", inNames: ["Uri"]) { _ in
          throw DBusError(DBusError.Name.notSupported, "responderd's proxy player does not open URIs")
        },
      ],
      properties: [
        mirrored("PlaybackStatus", "s"),
        mirrored("Metadata", "a{sv}"),
        mirrored("Volume", "d") { [weak self] value in try self?.setOnSelected("Volume", value) },
        mirrored("Rate", "d") { [weak self] value in try self?.setOnSelected("Rate", value) },
        DBusProperty(
          "Position", signature: "x", changeSignal: .none,
          get: { [weak self] in
            guard let self, let player = self.tracker.selected else { return .int64(0) }
            return .int64(player.position(at: self.tracker.scheduler.now))
          }),
        mirrored("MinimumRate", "d"),
        mirrored("MaximumRate", "d"),
        DBusProperty("CanGoNext", changeSignal: .constant, get: { true }),
        DBusProperty("CanGoPrevious", changeSignal: .constant, get: { true }),
        DBusProperty("CanPlay", changeSignal: .constant, get: { true }),
        DBusProperty("CanPause", changeSignal: .constant, get: { true }),
        mirrored("CanSeek", "b"),
        DBusProperty("CanControl", changeSignal: .constant, get: { true }),
      ],
      signals: [DBusSignalInfo("Seeked", signature: "x", argumentNames: ["Position"])])
  }

  // MARK: Values

  private func mirrored(
    _ name: String, _ signature: String, set: ((DBusValue) throws -> Void)? = nil
  ) -> DBusProperty {
    DBusProperty(
      name, signature: signature, get: { [weak self] in self?.read(name) ?? Self.fallback[name]! },
      set: set.map { set in { value in try set(value) } })
  }

  /// The values shown when no player is selected (or it gave a value of the wrong type).
  static let fallback: [String: DBusValue] = [
    "PlaybackStatus": "Stopped",
    "Metadata": .vardict(["mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")]),
    "Volume": .double(1), "Rate": .double(1), "MinimumRate": .double(1), "MaximumRate": .double(1),
    "CanSeek": false,
  ]

  /// A mirrored property: the selected player's value when it has the right type, else the fallback.
  func read(_ name: String) -> DBusValue {
    let fallback = Self.fallback[name]!
    if name == "PlaybackStatus", let predicted = predictedPlaying, predicted == tracker.selector.selectedID {
      return "Playing"
    }
    guard let value = tracker.selected?.playerProperties[name]?.unwrapped else { return fallback }
    if value.signature == fallback.signature { return value }
    // Players sometimes send an integer where a double belongs.
    if fallback.signature == "d", let number = value.double { return .double(number) }
    return fallback
  }

  /// What the mirrored properties read now.
  private func currentValues() -> [String: DBusValue] {
    var values: [String: DBusValue] = [:]
    for name in Self.mirroredProperties { values[name] = read(name) }
    return values
  }

  private func trackerChanged(_ change: PlayerTrackerChange) {
    let selectedID = tracker.selector.selectedID
    switch change {
    case .selection:
      guard selectedID != mirroredPlayer else { return }
      mirroredPlayer = selectedID
      emitChanges()
      // The position jumped to the new player's.
      if let player = tracker.selected {
        try? object?.emit(
          interface: MPRISNames.playerInterface, signal: "Seeked",
          arguments: [.int64(player.position(at: tracker.scheduler.now))])
      }
    case .properties(let player, let names):
      guard player == selectedID else { return }
      if names.contains("PlaybackStatus") { endPrediction() }
      emitChanges()
    case .seeked(let player, let position):
      guard player == selectedID else { return }
      try? object?.emit(
        interface: MPRISNames.playerInterface, signal: "Seeked", arguments: [.int64(position)])
    }
  }

  /// Emits PropertiesChanged with the mirrored values that differ from those last emitted.
  private func emitChanges() {
    let now = currentValues()
    var changed: [String: DBusValue] = [:]
    for (name, value) in now where emitted[name] != value { changed[name] = value }
    emitted = now
    guard !changed.isEmpty else { return }
    try? object?.emitPropertiesChanged(interface: MPRISNames.playerInterface, changed: changed)
  }

  // MARK: Playing first

  /// responderd has just sent `method` to `player`: when that starts the selected player
  /// playing, PlaybackStatus says so now, before the player does.
  private func willCall(_ player: MPRISPlayer, _ method: String) {
    guard player.uniqueName == tracker.selector.selectedID, player.playbackStatus != .playing,
      method == "Play" || method == "PlayPause"
    else { return }
    predictedPlaying = player.uniqueName
    predictionTimer?.cancel()
    predictionTimer = tracker.scheduler.schedule(after: Self.playPredictionTime) { [weak self] in
      self?.endPrediction()
      self?.emitChanges()
    }
    emitChanges()
  }

  private func endPrediction() {
    predictedPlaying = nil
    predictionTimer?.cancel()
    predictionTimer = nil
  }

  // MARK: Forwarding

  private func forward(_ method: String, _ call: DBusMethodCall) {
    controller.forwardSeek(method, arguments: call.arguments) { outcome in
      switch outcome {
      case .sent: call.reply()
      case .notHandled(let reason):
        call.reply(
          error: DBusError("org.mpris.MediaPlayer2.responderd.Error.NoPlayer", "\(method): \(reason)"))
      }
    }
  }

  /// Sets `property` (Volume, Rate: numbers) on the selected player. Refused with an error: a
  /// value that is not a finite number (NaN was answered with success), and any value when no
  /// player is selected (there is nothing to set it on).
  private func setOnSelected(_ property: String, _ value: DBusValue) throws {
    if let number = value.double, !number.isFinite {
      throw DBusError.invalidArgs("\(property) must be a finite number, not \(number)")
    }
    guard let player = tracker.selected else {
      throw DBusError.failed("no player is selected: there is no \(property) to set")
    }
    guard player.can(.control) else { return }
    connection.setProperty(
      property, to: value, interface: MPRISNames.playerInterface, path: MPRISNames.objectPath,
      destination: player.uniqueName, timeout: tracker.settings.callDeadline)
  }
}
