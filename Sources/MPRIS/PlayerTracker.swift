import DBus
import EventTime
import Logging
import PlayerSelection
import ResponderCore

#if canImport(Glibc)
  import Glibc
#endif

/// What changed in the tracker, for observers (the proxy player, the Players1 API).
public enum PlayerTrackerChange: Sendable {
  /// The selected player, or the reason for the selection, changed.
  case selection
  /// Player properties of a player changed (their names).
  case properties(player: String, names: Set<String>)
  /// A player jumped to a position (µs): its `Seeked` signal.
  case seeked(player: String, position: Int64)
}

/// Tracks the MPRIS players of a bus and which one is selected.
///
/// Players are found with `ListNames` at each (re)connection and followed through
/// `NameOwnerChanged` for `org.mpris.MediaPlayer2.*`; their properties come from `GetAll` and
/// `PropertiesChanged`, their jumps from `Seeked`. They are keyed by unique name, so a player
/// owning two names is one player. Those signals are subscribed to per player, by sender, so that
/// the bus daemon filters: responderd hears nothing of proxies (playerctld re-emits the signals of
/// the player it follows; with 20 chatty browser tabs, two thirds of the traffic) nor of itself.
///
/// Only the selected player's properties are shown (by the proxy player) and used (by the
/// controller): of the others' PropertiesChanged only `PlaybackStatus` (what the selection looks
/// at) is decoded; the rest (a browser tab's Metadata and Position, 10 times a second) is left
/// unread and named in the player's `unreadProperties`. When a signal selects its player (it
/// started playing; with `most-recent`, any signal), that signal is decoded in full; what it
/// leaves unread is read again (GetAll, with a callback), as for a player selected otherwise
/// (another one left or paused), and for `responderctl players` (`readUnreadProperties`).
public final class PlayerTracker {
  public let scheduler: Scheduler
  public let settings: PlayerSettings
  /// The selection policy's state.
  public private(set) var selector: PlayerSelector
  /// The players by unique name (proxies and responderd itself included).
  public private(set) var players: [String: MPRISPlayer] = [:]
  /// The connection followed (set by `attach`).
  public private(set) weak var connection: (any MessageBus)?
  private var owners: [String: String] = [:]
  private var observers: [(PlayerTrackerChange) -> Void] = []
  private var subscriptions: [DBusSubscription] = []
  /// The PropertiesChanged and Seeked subscriptions of each player followed (by unique name).
  private var playerSubscriptions: [String: [DBusSubscription]] = [:]
  /// Counts listings, so that answers to an older one are dropped.
  private var listing = 0
  /// Names whose owner changed since the current listing began (the signal is newer).
  private var changedDuringListing = Set<String>()
  private var probing = Set<String>()
  /// Players whose `PlaybackStatus` alone is being read (`readPlaybackStatus`).
  private var readingStatus = Set<String>()
  /// Players whose Player properties are being read again (`readPlayerProperties`), with the
  /// callbacks waiting for that read.
  private var reading: [String: [() -> Void]] = [:]
  /// Re-reads of the selected player's invalidated properties, a few a second at most.
  private lazy var rereads = CoalescedReads(scheduler: scheduler)
  /// Calls of the current listing still unanswered (ListNames, GetNameOwner, GetAll).
  private var listingPending = 0
  /// Players of the current listing whose properties are in, made candidates together at its end.
  private var listingLoaded: [(id: String, status: PlaybackStatus?)] = []
  private var listingFailed: [(id: String, reason: String)] = []
  private let logger: Logger

  /// responderd's own user: only players of that user are read and selected.
  public let ownUID: UInt32

  /// A tracker of the players of `ownUID` (the process's user by default).
  public init(
    settings: PlayerSettings, scheduler: Scheduler, ownUID: UInt32 = getuid(),
    logger: Logger = Logger(label: "responderd")
  ) {
    self.settings = settings
    self.scheduler = scheduler
    self.ownUID = ownUID
    self.logger = logger
    self.selector = PlayerSelector(settings: settings)
  }

  /// The selected player.
  public var selected: MPRISPlayer? { selector.selectedID.flatMap { players[$0] } }

  /// Calls `observer` after every change.
  public func addObserver(_ observer: @escaping (PlayerTrackerChange) -> Void) {
    observers.append(observer)
  }

  /// Follows the players of `connection`: subscribes once (the subscriptions survive
  /// reconnections), and lists the players now when connected. Call `refresh()` after each
  /// reconnection (the connection's `.connected` event).
  public func attach(to connection: any MessageBus) {
    self.connection = connection
    subscriptions.append(
      connection.onNameOwnerChanged(namespace: "org.mpris.MediaPlayer2") { [weak self] change in
        self?.nameOwnerChanged(change)
      })
    if connection.isConnected { refresh() }
  }

  /// Stops following the bus.
  public func detach() {
    for subscription in subscriptions { subscription.cancel() }
    subscriptions.removeAll()
    connection = nil
    forgetAll()
  }

  /// Forgets every player and lists the bus again (after a (re)connection).
  public func refresh() {
    forgetAll()
    guard let connection, connection.isConnected else { return }
    if selector.setOwnID(connection.uniqueName) { notify(.selection) }
    listing += 1
    let current = listing
    changedDuringListing.removeAll()
    listingLoaded.removeAll()
    listingFailed.removeAll()
    listingPending = 1
    connection.listNames { [weak self] result in
      guard let self, self.listing == current else { return }
      switch result {
      case .failure(let error):
        self.logger.warning("players: cannot list the bus names: \(error.message)")
      case .success(let names):
        for name in names where MPRISNames.isPlayerName(name) { self.lookUpOwner(of: name, listing: current) }
      }
      self.listingStepDone()
    }
  }

  /// One call of the listing answered; after the last one, the players found become candidates
  /// together (so that the selection does not depend on which player answered first).
  private func listingStepDone() {
    listingPending -= 1
    guard listingPending == 0 else { return }
    let now = scheduler.now
    var changed = selector.loaded(listingLoaded, at: now)
    for (id, reason) in listingFailed { changed = selector.unresponsive(id, reason: reason) || changed }
    listingLoaded.removeAll()
    listingFailed.removeAll()
    if changed { notify(.selection) }
  }

  /// The bus went away: every player is gone.
  public func connectionLost() {
    listing += 1
    forgetAll()
  }

  private func forgetAll() {
    for (_, list) in playerSubscriptions { for subscription in list { subscription.cancel() } }
    playerSubscriptions.removeAll()
    players.removeAll()
    owners.removeAll()
    probing.removeAll()
    readingStatus.removeAll()
    let waiting = reading.values.flatMap { $0 }
    reading.removeAll()
    rereads.forgetAll()
    for callback in waiting { callback() }
    if selector.removeAll() { notify(.selection) }
  }

  private func lookUpOwner(of name: String, listing current: Int) {
    guard let connection else { return }
    listingPending += 1
    connection.getNameOwner(name) { [weak self] result in
      guard let self, self.listing == current else { return }
      if !self.changedDuringListing.contains(name), let owner = try? result.get() {
        self.nameOwned(name, by: owner, live: false)
      }
      self.listingStepDone()
    }
  }

  // MARK: Names

  private func nameOwnerChanged(_ change: DBusNameOwnerChange) {
    guard MPRISNames.isPlayerName(change.name) else { return }
    changedDuringListing.insert(change.name)
    if let old = change.oldOwner { nameReleased(change.name, by: old) }
    if let new = change.newOwner { nameOwned(change.name, by: new, live: true) }
  }

  private func nameOwned(_ name: String, by owner: String, live: Bool) {
    if let previous = owners[name], previous != owner { nameReleased(name, by: previous) }
    owners[name] = owner
    let now = scheduler.now
    if var player = players[owner] {
      guard !player.busNames.contains(name) else { return }
      player.busNames = (player.busNames + [name]).sorted()
      players[owner] = player
      if selector.namesChanged(owner, names: player.busNames) { notify(.selection) }
      return
    }
    players[owner] = MPRISPlayer(uniqueName: owner, busNames: [name])
    var changed = selector.appeared(owner, names: [name], at: now, live: live)
    logger.log(
      level: isProxy(owner) ? .debug : .info,
      "players: \(MPRISNames.shortName(name)) (\(owner)) \(live ? "appeared" : "found")")
    switch selector.players[owner]?.exclusion {
    case .itself?, .proxy?:
      // Listed, never read nor controlled.
      changed = selector.loaded(owner, status: nil, at: now) || changed
    default:
      followIfOwnUser(owner, listing: live ? nil : listing)
      checkForHeadset(owner)
    }
    if changed { notify(.selection) }
  }

  /// Asks the bus which user runs player `id` (`GetConnectionCredentials`); follows and reads it
  /// when it is responderd's own user. Another user's player (on a bus shared by users) is listed,
  /// never read, selected nor controlled, and its title never shown on the proxy player.
  private func followIfOwnUser(_ id: String, listing batch: Int?) {
    guard let connection else { return }
    if batch != nil { listingPending += 1 }
    connection.call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetConnectionCredentials", arguments: [.string(id)], timeout: max(settings.callDeadline, 2)
    ) { [weak self] result in
      guard let self else { return }
      let inBatch = batch != nil && batch == self.listing
      defer { if inBatch { self.listingStepDone() } }
      guard self.players[id] != nil else { return }
      let uid = (try? result.get())?.first?.dictionary?["UnixUserID"]?.uint32
      guard let uid, uid == self.ownUID else {
        self.logger.notice(
          "players: \(self.players[id].map(self.displayName) ?? id) (\(id)) \(uid.map { "runs as uid \($0), not as uid \(self.ownUID)" } ?? "runs as a user the bus cannot tell"): never selected nor controlled"
        )
        if self.selector.ownedByAnotherUser(id, uid: uid) { self.notify(.selection) }
        return
      }
      self.follow(id)
      self.load(id, listing: inBatch ? batch : nil)
    }
  }

  /// The program behind a connection, by process id (`/proc/PID/comm`); nil when unknown.
  /// Replaceable for tests on the in-memory bus.
  public var processName: (UInt32) -> String? = PlayerTracker.processName(of:)

  /// The reason a player exported by BlueZ's mpris-proxy is never selected.
  public static let bluetoothHeadsetReason =
    "a Bluetooth headset exported by BlueZ's mpris-proxy (controlling it would send the keys back to the headset)"

  /// BlueZ's mpris-proxy exports each connected Bluetooth headset (its AVRCP target) as an MPRIS
  /// player of its own connection: the headset is not a player to control, and selecting it
  /// steals the real player's keys (bluez#1980). Known by the process behind the connection.
  private func checkForHeadset(_ owner: String) {
    guard let connection else { return }
    connection.unixProcessID(of: owner) { [weak self] result in
      guard let self, self.players[owner] != nil, let pid = try? result.get(),
        self.processName(pid) == "mpris-proxy"
      else { return }
      self.logger.info("players: \(owner) is \(Self.bluetoothHeadsetReason): never selected")
      if self.selector.notAPlayer(owner, reason: Self.bluetoothHeadsetReason) { self.notify(.selection) }
    }
  }

  /// `/proc/PID/comm` without its newline.
  public static func processName(of pid: UInt32) -> String? {
    guard let file = fopen("/proc/\(pid)/comm", "r") else { return nil }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.hasSuffix("\n") ? String(text.dropLast()) : text
  }

  private func nameReleased(_ name: String, by owner: String) {
    guard owners[name] == owner else { return }
    owners[name] = nil
    guard var player = players[owner] else { return }
    player.busNames.removeAll { $0 == name }
    if player.busNames.isEmpty {
      players[owner] = nil
      rereads.forget(owner)
      for subscription in playerSubscriptions.removeValue(forKey: owner) ?? [] { subscription.cancel() }
      probing.remove(owner)
      logger.log(
        level: isProxy(owner) ? .debug : .info, "players: \(MPRISNames.shortName(name)) (\(owner)) left")
      if selector.vanished(owner) { notify(.selection) }
    } else {
      players[owner] = player
      if selector.namesChanged(owner, names: player.busNames) { notify(.selection) }
    }
  }

  // MARK: Properties

  /// Subscribes to the signals of player `id` (before its properties are read, so that no change
  /// falls between the two: the bus daemon handles the match rule before the GetAll calls).
  private func follow(_ id: String) {
    guard let connection, playerSubscriptions[id] == nil else { return }
    playerSubscriptions[id] = [
      // Of the MPRIS interfaces only (a player may export others at that path).
      connection.subscribe(
        DBusMatchRule(
          sender: id, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
          path: MPRISNames.objectPath, arg0Namespace: MPRISNames.rootInterface)
      ) { [weak self] message in
        self?.propertiesChanged(message)
      },
      connection.onSignal(
        sender: id, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface, member: "Seeked"
      ) { [weak self] message in
        self?.seeked(message)
      },
    ]
  }

  /// Reads both interfaces of a player; it becomes a candidate once its Player properties are in
  /// (at the end of `listing` for a player found by that listing).
  private func load(_ id: String, listing batch: Int? = nil) {
    guard let connection else { return }
    if batch != nil { listingPending += 1 }
    let timeout = max(settings.callDeadline, 2)
    connection.getAllProperties(
      interface: MPRISNames.rootInterface, path: MPRISNames.objectPath, destination: id, timeout: timeout,
      limits: MPRISPlayer.decodingLimits, wanted: { _ in true }
    ) { [weak self] result in
      guard let self, self.players[id] != nil, let read = try? result.get() else { return }
      self.players[id]!.rootProperties = MPRISPlayer.kept(read.values)
      if read.exceededLimits { self.exceededLimits(id) }
    }
    connection.getAllProperties(
      interface: MPRISNames.playerInterface, path: MPRISNames.objectPath, destination: id, timeout: timeout,
      limits: MPRISPlayer.decodingLimits, wanted: MPRISPlayer.playerPropertyNames.contains
    ) { [weak self] result in
      guard let self else { return }
      let inBatch = batch != nil && batch == self.listing
      defer { if inBatch { self.listingStepDone() } }
      guard var player = self.players[id] else { return }
      let now = self.scheduler.now
      switch result {
      case .success(let read):
        let values = read.values
        player.playerProperties = MPRISPlayer.kept(values)
        // Newer than any signal left unread while it was loading.
        player.forgetUnread()
        if let position = values["Position"]?.int64 { player.setPosition(position, at: now) }
        self.players[id] = player
        if read.exceededLimits { self.exceededLimits(id) }
        self.notify(.properties(player: id, names: Set(values.keys)))
        if inBatch {
          self.listingLoaded.append((id, player.playbackStatus))
          return
        }
        var changed = self.selector.loaded(id, status: player.playbackStatus, at: now)
        changed = self.selector.responsive(id) || changed
        if changed { self.notify(.selection) }
      case .failure(let error):
        self.logger.notice("players: cannot read the properties of \(id): \(error.message.loggable)")
        let reason = "did not answer GetAll: \(error.message)"
        if inBatch {
          self.listingLoaded.append((id, nil))
          self.listingFailed.append((id, reason))
          return
        }
        var changed = self.selector.loaded(id, status: nil, at: now)
        changed = self.selector.unresponsive(id, reason: reason) || changed
        if changed { self.notify(.selection) }
      }
    }
  }

  /// Whether a changed property is worth decoding: every one of the selected player; of the
  /// others, what the selection looks at (and the rare changes of the root interface).
  private static func wants(selected: Bool, interface: String, name: String) -> Bool {
    guard interface == MPRISNames.playerInterface else { return true }
    return selected ? MPRISPlayer.playerPropertyNames.contains(name) : name == "PlaybackStatus"
  }

  /// Player `id` sent more than responderd decodes (`MPRISPlayer.decodingLimits`): said once in
  /// the log, and its invalidated properties are read again at most every
  /// `CoalescedReads.oversizedInterval` (each read brings the whole message in, cut or not).
  private func exceededLimits(_ id: String) {
    guard players[id] != nil else { return }
    rereads.slowDown(id)
    guard !players[id]!.exceededLimits else { return }
    players[id]!.exceededLimits = true
    let limits = MPRISPlayer.decodingLimits
    logger.notice(
      "players: \(players[id].map(displayName) ?? id) (\(id)) sends properties larger than responderd reads (\(limits.maximumEntries) entries, \(limits.maximumStringBytes)-byte strings, \(limits.maximumDepth) levels): the rest is left out, and its changes are read again every \(formatSeconds(CoalescedReads.oversizedInterval, decimals: 0)) s at most"
    )
  }

  private func propertiesChanged(_ message: DBusMessage) {
    guard let sender = message.sender, let index = players.index(forKey: sender) else { return }
    if droppedUnread(message, from: sender, at: index) { return }
    let proxy = isProxy(sender)
    let selected = selector.selectedID == sender
    guard
      var change = message.readPropertiesChanged(
        limits: MPRISPlayer.decodingLimits,
        wanted: { interface, name in
          !proxy && Self.wants(selected: selected, interface: interface, name: name)
        })
    else { return }
    if change.interface == MPRISNames.playerInterface,
      change.unread.contains(where: { !MPRISPlayer.playerPropertyNames.contains($0) })
    {
      // Not a property responderd reads: never read again either.
      change.unread.removeAll { !MPRISPlayer.playerPropertyNames.contains($0) }
    }
    if change.exceededLimits { exceededLimits(sender) }
    let now = scheduler.now
    var newStatus: PlaybackStatus?
    // Changed in place (a copy would copy its property dictionaries, for every signal).
    switch proxy ? nil : change.interface {
    case MPRISNames.playerInterface:
      players[sender]!.mergePlayerProperties(change.changed, at: now)
      players[sender]!.noteRead(change.changed.keys, unread: change.unread)
      if change.changed["PlaybackStatus"] != nil { newStatus = players[sender]!.playbackStatus }
    case MPRISNames.rootInterface:
      players[sender]!.mergeRootProperties(change.changed)
    default:
      break
    }
    let kind = activityKind(of: sender, change)
    let wasUnresponsive = selector.players[sender]?.unresponsiveReason != nil
    let selectionChanged = selector.signal(sender, kind: kind, status: newStatus, at: now)
    if !change.unread.isEmpty, !proxy, selector.selectedID == sender,
      let full = message.readPropertiesChanged(
        limits: MPRISPlayer.decodingLimits,
        wanted: { _, name in MPRISPlayer.playerPropertyNames.contains(name) })
    {
      // Selected by this very signal: its values are the newest. A chatty player sends the same
      // properties each time: nothing is left unread then, and nothing to ask it.
      players[sender]!.mergePlayerProperties(full.changed, at: now)
      players[sender]!.noteRead(full.changed.keys, unread: [])
    }
    if change.interface == MPRISNames.playerInterface, !change.changed.isEmpty {
      // Nothing read, nothing to tell (a chatty player's signals, a player only invalidating).
      notify(.properties(player: sender, names: Set(change.changed.keys)))
    }
    if selectionChanged { notify(.selection) }
    // Invalidated values come without their value; a player back from the dead may have changed.
    // All are read again of the selected player only. Of another, what the selection looks at
    // (PlaybackStatus) is read alone, and the rest is left unread until it is selected: a player
    // invalidating its 4 MB Metadata 50 times a second cost half a core in GetAll calls.
    if wasUnresponsive {
      readPlayerProperties(sender)
    } else if !change.invalidated.isEmpty && !proxy && selector.selectedID == sender {
      // Coalesced: a few reads a second at most, whatever the player sends.
      rereads.request(sender) { [weak self] done in self?.readPlayerProperties(sender, done: done) }
    } else if !change.invalidated.isEmpty, !proxy, change.interface == MPRISNames.playerInterface {
      let others = change.invalidated.filter { $0 != "PlaybackStatus" }
      if !others.isEmpty { players[sender]!.noteRead([:].keys, unread: others) }
      if others.count < change.invalidated.count { readPlaybackStatus(sender) }
    }
  }

  /// A signal of a player that is not selected, whose changes cannot change the selection (under
  /// playing-first: any Player property but `PlaybackStatus`, nothing invalidated), is recorded as
  /// activity and its changes as unread, from the changed properties' names alone: no value is
  /// decoded and nobody is told (a browser tab's Metadata and Position, 10 times a second). A
  /// player's signal naming what its last such signal named is compared in the message, without
  /// making a string or an array. Returns false when the signal needs reading.
  private func droppedUnread(
    _ message: DBusMessage, from sender: String, at index: Dictionary<String, MPRISPlayer>.Index
  ) -> Bool {
    guard settings.policy == .playingFirst, selector.selectedID != sender else { return false }
    let quiet: QuietSignal
    if let last = players.values[index].quietSignal,
      message.changesExactly(last.names, ofInterface: MPRISNames.playerInterface)
    {
      quiet = last
    } else {
      let limits = MPRISPlayer.decodingLimits
      guard
        let names = message.changedPropertyNames(
          ofInterface: MPRISNames.playerInterface, most: limits.maximumEntries,
          longest: limits.maximumStringBytes),
        !names.contains("PlaybackStatus")
      else { return false }
      // Named as the full reading names them: the Player properties responderd reads.
      let kept = names.filter(MPRISPlayer.playerPropertyNames.contains)
      quiet = QuietSignal(names: names, kept: kept, kind: activityKind(of: sender, names: kept))
      players.values[index].quietSignal = quiet
      players.values[index].quietSignalNoted = false
    }
    guard selector.quietSignal(sender, kind: { quiet.kind }, at: scheduler.now) else { return false }
    // Noted once: a signal naming what the last one named notes nothing until one is read.
    if !quiet.kept.isEmpty, !players.values[index].quietSignalNoted {
      players.values[index].noteRead([:].keys, unread: quiet.kept)
      players.values[index].quietSignalNoted = true
    }
    message.couldWait = true
    return true
  }

  /// Reads `PlaybackStatus` alone of a player not selected that invalidated it (one read at a
  /// time per player: a player invalidating it in a loop gets no more calls than it answers).
  private func readPlaybackStatus(_ id: String) {
    guard let connection, readingStatus.insert(id).inserted else { return }
    connection.getProperty(
      "PlaybackStatus", interface: MPRISNames.playerInterface, path: MPRISNames.objectPath, destination: id,
      timeout: max(settings.callDeadline, 2)
    ) { [weak self] result in
      guard let self, self.readingStatus.remove(id) != nil, self.players[id] != nil,
        case .success(let value) = result
      else { return }
      let now = self.scheduler.now
      self.players[id]!.mergePlayerProperties(["PlaybackStatus": value], at: now)
      self.players[id]!.noteRead(["PlaybackStatus": value].keys, unread: [])
      var changed = false
      if let status = self.players[id]!.playbackStatus {
        changed = self.selector.statusRead(id, status: status, at: now)
      }
      self.notify(.properties(player: id, names: ["PlaybackStatus"]))
      if changed { self.notify(.selection) }
    }
  }

  /// "PropertiesChanged (Metadata, Position)": the same for most signals of a player, so made
  /// once and kept.
  private func activityKind(of id: String, _ change: DBusPropertiesChange) -> String {
    let names =
      change.changed.isEmpty && change.invalidated.isEmpty
      ? change.unread : Array(change.changed.keys) + change.unread + change.invalidated
    return activityKind(of: id, names: names)
  }

  private func activityKind(of id: String, names: [String]) -> String {
    if let index = players.index(forKey: id), let last = players.values[index].lastSignal, last.names == names
    {
      return last.kind
    }
    let kind = "PropertiesChanged (\(names.count == 1 ? names[0] : names.sorted().joined(separator: ", ")))"
    players[id]?.lastSignal = (names, kind)
    return kind
  }

  private func seeked(_ message: DBusMessage) {
    guard let sender = message.sender, var player = players[sender],
      let position = message.arguments.first?.int64
    else { return }
    let now = scheduler.now
    if !isProxy(sender) {
      player.setPosition(position, at: now)
      players[sender] = player
    }
    let changed = selector.signal(sender, kind: "Seeked", at: now)
    notify(.seeked(player: sender, position: position))
    if changed { notify(.selection) }
  }

  /// Reads the Player properties of `id` again (after invalidation, when it becomes selected with
  /// changes left unread, for a report); `done` runs once they are in or the read failed.
  private func readPlayerProperties(_ id: String, timeout: Seconds? = nil, done: (() -> Void)? = nil) {
    guard let connection, players[id] != nil else {
      done?()
      return
    }
    if reading[id] != nil {
      if let done { reading[id]!.append(done) }
      return
    }
    reading[id] = done.map { [$0] } ?? []
    connection.getAllProperties(
      interface: MPRISNames.playerInterface, path: MPRISNames.objectPath, destination: id,
      timeout: timeout ?? max(settings.callDeadline, 2), limits: MPRISPlayer.decodingLimits,
      wanted: MPRISPlayer.playerPropertyNames.contains
    ) { [weak self] result in
      guard let self, let waiting = self.reading.removeValue(forKey: id) else { return }
      defer { for callback in waiting { callback() } }
      guard self.players[id] != nil, let read = try? result.get() else { return }
      if read.exceededLimits { self.exceededLimits(id) }
      guard var player = self.players[id] else { return }
      let values = read.values
      let now = self.scheduler.now
      let wasOutdated = player.hasUnreadChanges
      player.mergePlayerProperties(values, at: now)
      // Newer than every signal left unread: the player sent those before this answer.
      player.forgetUnread()
      self.players[id] = player
      var changed = false
      if let status = player.playbackStatus {
        changed = self.selector.statusRead(id, status: status, at: now)
      }
      self.notify(.properties(player: id, names: Set(values.keys)))
      if wasOutdated, let position = values["Position"]?.int64, self.selector.selectedID == id {
        // The position shown (by the proxy player) jumps from the outdated one.
        self.notify(.seeked(player: id, position: position))
      }
      if changed { self.notify(.selection) }
    }
  }

  /// Reads the properties of every player with changes left unread (not selected while they
  /// changed), then calls `done`: for showing them all (`responderctl players`). A player that
  /// does not answer within `timeout` keeps its last known values.
  public func readUnreadProperties(timeout: Seconds = 1, done: @escaping () -> Void) {
    let ids = players.values.filter { $0.hasUnreadChanges }.map { $0.uniqueName }
    guard !ids.isEmpty else { return done() }
    var left = ids.count
    for id in ids {
      readPlayerProperties(id, timeout: timeout) {
        left -= 1
        if left == 0 { done() }
      }
    }
  }

  // MARK: Responsiveness

  /// Records that a player missed a deadline: it is passed over until it answers again. A ping
  /// waits for that answer (no polling: one call, answered whenever the player wakes up).
  public func markUnresponsive(_ id: String, reason: String) {
    guard players[id] != nil else { return }
    logger.notice(
      "players: \(players[id].map(displayName) ?? id) is unresponsive (\(reason)); passing it over")
    if selector.unresponsive(id, reason: reason) { notify(.selection) }
    probe(id)
  }

  /// Pings the players marked unresponsive that are not being pinged already.
  public func probeUnresponsive() {
    for (id, record) in selector.players where record.unresponsiveReason != nil { probe(id) }
  }

  private func probe(_ id: String) {
    guard let connection, !probing.contains(id) else { return }
    probing.insert(id)
    connection.call(
      destination: id, path: MPRISNames.objectPath, interface: "org.freedesktop.DBus.Peer", method: "Ping",
      timeout: 120
    ) { [weak self] result in
      guard let self, self.probing.remove(id) != nil, self.players[id] != nil else { return }
      if case .success = result {
        self.logger.info("players: \(self.players[id].map(self.displayName) ?? id) answers again")
        if self.selector.responsive(id) { self.notify(.selection) }
        if !(self.selector.players[id]?.isLoaded ?? false)
          || self.players[id]?.playerProperties.isEmpty == true
        {
          self.load(id)
        }
      }
    }
  }

  // MARK: Helpers

  /// Whether `id` is responderd itself or a proxy: its signals count as its own activity, and
  /// its properties (an echo of another player's) are not kept.
  private func isProxy(_ id: String) -> Bool {
    switch selector.players[id]?.exclusion {
    case .itself?, .proxy?: true
    default: false
    }
  }

  /// The name to show for a player.
  public func displayName(_ player: MPRISPlayer) -> String {
    selector.players[player.uniqueName]?.displayName ?? player.uniqueName
  }

  private func notify(_ change: PlayerTrackerChange) {
    if case .selection = change, let id = selector.selectedID, players[id]?.hasUnreadChanges == true {
      readPlayerProperties(id)
    }
    for observer in observers { observer(change) }
  }
}

/// What a player's signal dropped unread changed (`PlayerTracker.droppedUnread`): the names in
/// message order, the Player properties among them, and the activity kind made of them.
final class QuietSignal: Sendable {
  let names: [String]
  let kept: [String]
  let kind: String

  init(names: [String], kept: [String], kind: String) {
    self.names = names
    self.kept = kept
    self.kind = kind
  }
}
