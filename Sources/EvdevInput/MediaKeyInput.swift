import EventLoop
import EventTime
import InputCodes
import Logging

/// Headset and media keys from evdev: finds the devices that have mapped keys (at start and on
/// hotplug), reads them with libevdev on the event loop, and hands their mapped keys to `sink`
/// (`MappedKeyEvent`). Which keys are mapped and which devices are owned is decided above it
/// (`decide`: the config's key settings); what the keys mean (the key interpreter) too.
///
/// Devices of a headset class (the sound card's jack input, a USB headset's keys, BlueZ's AVRCP
/// device) or marked by a rule are owned: grabbed (EVIOCGRAB) while none of their keys is down, so
/// the desktop never sees their keys, and then every key they have is read: mapped keys go to the
/// interpreter, volume keys to the volume observers, the others to the owned-key observers. Of a
/// shared device only the mapped key codes are read (see `MappedKeyFilter`); typing keys are never
/// read from any device.
///
/// Who has a device's keys is `DeviceOwnership`'s state machine; this file does what it says.
/// Hotplug and reading are in MediaKeyDevices.swift, the fan-out of keys in MediaKeyFanOut.swift.
public final class MediaKeyInput {
  /// A device being read.
  public struct OpenDevice: Sendable {
    public var path: String
    /// "/sys/devices/…/event7" (empty when udev did not say).
    public var syspath: String
    public var identity: InputDeviceIdentity
    /// The mapped keys it has: the only codes read from it while it is shared.
    public var keys: [UInt16]
    public var clockIsMonotonic: Bool
    /// The source name its events carry ("evdev:/dev/input/event7").
    public var source: String
    /// Whether responderd holds it exclusively now.
    public var isOwned: Bool
  }

  /// Something that happened to the set of devices.
  public enum DeviceChange: Sendable {
    case opened(OpenDevice)
    /// Opened to look at it, then closed: no mapped key, or ignored by a rule.
    case skipped(path: String, reason: String)
    case closed(path: String, reason: String)
    /// A device's status changed: grabbed, left shared (busy, a key down), …
    case status(DeviceStatus)
  }

  /// A volume key (KEY_VOLUMEUP, KEY_VOLUMEDOWN, KEY_MUTE) of an owned device: the desktop does not
  /// see it, so the sound server's volume is responderd's to change.
  public struct VolumeKeyEvent: Sendable, Equatable {
    /// KEY_VOLUMEUP, KEY_VOLUMEDOWN or KEY_MUTE.
    public var code: UInt16
    /// 1 press, 0 release, 2 auto-repeat (a held volume key repeats).
    public var value: Int32
    /// When, on the scheduler's clock.
    public var timestamp: Seconds
    /// The device node ("/dev/input/event7").
    public var path: String
    /// Its sysfs path ("/sys/devices/…/usb1/1-2/1-2:1.3/…/event7"): its USB device or sound card is
    /// an ancestor, to find the headset's own sink.
    public var syspath: String
    public var identity: InputDeviceIdentity
  }

  /// Any other key of an owned device (KEY_VOICECOMMAND, KEY_PHONE, KEY_MICMUTE, …): neither a
  /// mapped key nor a volume key, and never a typing key.
  public struct OwnedKeyEvent: Sendable, Equatable {
    public var code: UInt16
    /// 1 press, 0 release (auto-repeat is not reported).
    public var value: Int32
    public var timestamp: Seconds
    public var path: String
    public var identity: InputDeviceIdentity
  }

  /// What was read, for observers: only mapped keys are ever seen here.
  public enum ReadEvent: Sendable, Equatable {
    /// A mapped key event (press, release or auto-repeat) read from the device at `path`.
    case key(path: String, code: UInt16, value: Int32)
    /// The device at `path` reported SYN_DROPPED, and its state was read again.
    case resynced(path: String)
  }

  /// One open device: what is read from it and who has its keys.
  struct Reader {
    var info: OpenDevice
    var device: any InputDevice
    /// The mapped keys: read whether the device is owned or shared.
    var filter: MappedKeyFilter
    /// The other keys read while the device is owned (volume and other non-typing keys).
    var ownedKeys: Set<UInt16>
    /// What is read from libevdev: the mapped keys, and the owned keys while they may be.
    var readFilter: MappedKeyFilter
    var decision: KeyDeviceDecision
    var ownership = DeviceOwnership.shared
    /// Why the last grab failed (for the status).
    var grabError = ""
    var status: DeviceStatus
    /// Whether "no one takes its volume keys" was logged.
    var loggedUnhandledVolume = false
  }

  let loop: EventLoop
  let scheduler: any Scheduler
  /// Whether key timestamps are put on CLOCK_MONOTONIC (the loop's clock).
  let convertsToMonotonic: Bool
  var logger: Logger
  /// Where the devices are found and opened (udev and libevdev, or a test's double).
  let watcher: any InputDeviceSource
  /// What to do with a device opened (its mapped keys, whether to own it).
  let decide: (KeyDeviceCandidate) -> KeyDeviceDecision
  /// Where the mapped keys go.
  let sink: (MappedKeyEvent) -> Void
  var readers: [String: Reader] = [:]
  /// Devices closed but kept in view (yielded to the desktop, suspended), by path.
  var closed: [String: DeviceOwnership] = [:]
  /// What is known of every input device seen (open or not), by path.
  var statuses: [String: DeviceStatus] = [:]
  /// While the session is inactive (`suspend`): no device is open, none is opened.
  public private(set) var isSuspended = false
  var deviceObservers: [(DeviceChange) -> Void] = []
  var readObservers: [(ReadEvent) -> Void] = []
  var volumeKeyObservers: [(VolumeKeyEvent) -> Void] = []
  var ownedKeyObservers: [(OwnedKeyEvent) -> Void] = []

  /// `decide` says what to do with each device opened; `sink` receives the mapped keys of the
  /// devices kept, on the loop thread.
  ///
  /// Key timestamps are read on the scheduler's clock. With the loop's scheduler (the default:
  /// CLOCK_MONOTONIC), a device that keeps CLOCK_REALTIME has its timestamps converted; with a
  /// scheduler of your own (virtual time), they are taken as the device reports them. `devices`:
  /// where devices are found and opened (udev and libevdev when nil; a test's double).
  public init(
    loop: EventLoop, scheduler: (any Scheduler)? = nil, logger: Logger,
    devices: (any InputDeviceSource)? = nil,
    decide: @escaping (KeyDeviceCandidate) -> KeyDeviceDecision, sink: @escaping (MappedKeyEvent) -> Void
  ) {
    self.loop = loop
    self.scheduler = scheduler ?? loop.scheduler
    self.convertsToMonotonic = scheduler == nil
    self.logger = logger
    self.decide = decide
    self.sink = sink
    watcher = devices ?? UdevInputWatcher(loop: loop)
  }

  /// The scheduler whose clock the key timestamps are on.
  public var keyScheduler: any Scheduler { scheduler }

  deinit { stop() }

  /// Calls `observer` with every later change to the set of devices.
  public func addDeviceObserver(_ observer: @escaping (DeviceChange) -> Void) {
    deviceObservers.append(observer)
  }

  /// Calls `observer` with every mapped key event read and every resync, before `sink` gets them.
  public func addReadObserver(_ observer: @escaping (ReadEvent) -> Void) {
    readObservers.append(observer)
  }

  /// Calls `observer` with every volume key event (press, release, repeat) of an owned device. Volume
  /// keys of shared devices are the desktop's: never read.
  public func addVolumeKeyObserver(_ observer: @escaping (VolumeKeyEvent) -> Void) {
    volumeKeyObservers.append(observer)
  }

  /// Calls `observer` with every press and release of an owned device's other keys (neither mapped
  /// nor volume keys).
  public func addOwnedKeyObserver(_ observer: @escaping (OwnedKeyEvent) -> Void) {
    ownedKeyObservers.append(observer)
  }

  func notify(_ change: DeviceChange) {
    for observer in deviceObservers { observer(change) }
  }

  /// Whether the device whose events carry `source` ("evdev:/dev/input/event7") is held
  /// exclusively now (the desktop does not see its keys).
  public func isOwned(source: String) -> Bool {
    guard source.hasPrefix("evdev:"), let reader = readers[String(source.dropFirst("evdev:".count))] else {
      return false
    }
    return reader.info.source == source && reader.info.isOwned
  }

  /// The devices being read, by path.
  public var openDevices: [OpenDevice] { readers.values.map(\.info).sorted { $0.path < $1.path } }

  /// Every input device seen and what responderd does with it (owned, shared, left alone), by path.
  public var deviceStatuses: [DeviceStatus] { statuses.values.sorted { $0.path < $1.path } }

  func setStatus(_ status: DeviceStatus) {
    statuses[status.path] = status
    if readers[status.path] != nil { readers[status.path]!.status = status }
    notify(.status(status))
  }

  /// Whether hotplug is followed.
  public var isMonitoring: Bool { watcher.isMonitoring }

  /// The desktop that takes the media keys itself ("GNOME (gsd-media-keys)"), nil when none.
  /// While there is one, the devices responderd does not own (keyboards, remotes, a device another
  /// program holds, `grab = "never"`) are not read: their keys are the desktop's, so that one press
  /// makes one action (docs/design.md#one-press-one-action). Owned devices stay responderd's.
  public private(set) var desktop: String?

  /// Sets `desktop`: shared devices are closed when a desktop appears, and opened again when it
  /// goes away.
  public func setDesktop(_ desktop: String?) {
    guard desktop != self.desktop else { return }
    self.desktop = desktop
    guard !isSuspended else { return }
    if desktop != nil {
      for path in readers.keys.sorted() { transition(path, .desktopAppeared) }
    } else {
      for path in closed.keys.sorted() { transition(path, .desktopLeft) }
    }
  }

  /// The reason code of a device left to the desktop.
  public static let desktopReasonCode = "desktop"

  /// The session went inactive (another user's session is in front): every device is released
  /// (ungrabbed) and closed, and none is opened until `resume()`. Seeks under way end now.
  public func suspend() {
    guard !isSuspended else { return }
    isSuspended = true
    let known = Set(readers.keys).union(closed.keys)
    for path in known.sorted() { transition(path, .sessionInactive) }
    for var status in statuses.values where !known.contains(status.path) {
      status.leaveAlone(because: Self.sessionInactiveReason, code: "session-inactive")
      setStatus(status)
    }
    logger.info("evdev: session inactive: every input device released and closed")
  }

  static let sessionInactiveReason = "the session is inactive (another session is in front)"

  /// The session is active again: the devices present are looked at (and taken) again.
  public func resume() {
    guard isSuspended else { return }
    isSuspended = false
    statuses.removeAll()
    closed.removeAll()
    for node in watcher.present() { add(node) }
    logger.info("evdev: session active: reading \(readers.count) device(s) again")
  }

  /// Feeds `event` to the ownership state machine of the device at `path` (open, or closed but kept
  /// in view) and does what it says.
  func transition(_ path: String, _ event: DeviceOwnership.Event) {
    guard var ownership = readers[path]?.ownership ?? closed[path] else { return }
    let actions = ownership.handle(event)
    if readers[path] != nil {
      readers[path]!.ownership = ownership
      readers[path]!.info.isOwned = ownership.isOwned
    } else {
      closed[path] = ownership
    }
    for action in actions { perform(action, on: path, now: ownership) }
  }

  private func perform(_ action: DeviceOwnership.Action, on path: String, now ownership: DeviceOwnership) {
    switch action {
    case .grab:
      tryGrab(path)
    case .discardPending:
      readers[path]?.device.discardPending()
    case .readMappedKeysOnly:
      guard let reader = readers[path] else { return }
      reader.filter.restrict(reader.device)
      readers[path]!.ownedKeys = []
      readers[path]!.readFilter = reader.filter
    case .reportStatus:
      reportStatus(of: path, ownership)
    case .close:
      remove(
        path, reason: ownership == .suspended ? "session inactive" : "left to the desktop", forget: false)
      closed[path] = ownership
    case .reopen:
      closed[path] = nil
      statuses[path] = nil
      add(path)
    }
  }

  /// Grabs an owned device when none of its keys is down (checked before and after the grab: a key
  /// that went down in between gives the device back at once). With a key down it stays shared and
  /// is tried again when its events have been read. Another program's grab (EBUSY) leaves it shared
  /// for good.
  private func tryGrab(_ path: String) {
    guard let reader = readers[path], !reader.device.isGrabbed else { return }
    let device = reader.device
    do {
      if try !device.keysDown().isEmpty {
        transition(path, .keyDown)
        return
      }
      try device.grab()
      if try !device.keysDown().isEmpty {
        device.ungrab()
        transition(path, .keyDown)
        return
      }
    } catch {
      device.ungrab()
      readers[path]!.grabError = "\(error)"
      transition(path, .grabFailed(busy: error.errno == .resourceBusy))
      return
    }
    transition(path, .grabbed)
  }

  /// Logs and publishes what the device's new state means (`responderctl devices`' line).
  private func reportStatus(of path: String, _ ownership: DeviceOwnership) {
    guard var status = readers[path]?.status ?? statuses[path] else { return }
    let name = readers[path]?.info.identity.name ?? status.identity.name
    switch ownership {
    case .shared:
      break
    case .waitingForKeysUp:
      guard let reader = readers[path] else { return }
      logger.info("evdev: \(path): a key is down; it is grabbed once every key is up")
      status.share(
        because: "\(reader.decision.explanation); a key is down: grabbed once every key is up",
        code: "key-down"
      )
    case .owned:
      guard let reader = readers[path] else { return }
      status.own(because: reader.decision.explanation, code: reader.decision.reasonCode)
      status.keys = Set(reader.info.keys).union(reader.ownedKeys).sorted().map(InputCode.keyName)
      logger.info(
        "evdev: owning \(path) '\(name)' (\(reader.decision.explanation)): the desktop no longer sees its keys"
      )
    case .busy(heldByAnother: true):
      logger.notice(
        "evdev: \(path) '\(name)' is held by another program (EVIOCGRAB: busy): it stays shared; while that program holds it, every key of the device goes to that program alone and responderd gets none"
      )
      status.share(because: "another program holds it (EVIOCGRAB: busy)", code: "busy")
    case .busy(heldByAnother: false):
      let error = readers[path]?.grabError ?? ""
      logger.warning("evdev: \(path) '\(name)': cannot grab it (\(error)); it stays shared")
      status.share(because: "cannot grab it: \(error)", code: "grab-failed")
    case .yieldedToDesktop:
      guard let desktop else { return }
      status.leaveAlone(
        because:
          "shared with the desktop, which handles media keys itself (\(desktop)): not read, its keys are the desktop's (\(status.reason))",
        code: Self.desktopReasonCode)
    case .suspended:
      status.leaveAlone(because: Self.sessionInactiveReason, code: "session-inactive")
    }
    setStatus(status)
  }
}
