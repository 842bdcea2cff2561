import EventLoop
import EventTime
import InputCodes
import Logging
import RemoteControl
import ResponderCore

#if canImport(Glibc)
  import Glibc
#endif

/// Headset and media keys from evdev: finds the devices that have mapped keys (at start and on
/// hotplug), reads them with libevdev on the event loop, and runs the key interpreter (mapping and
/// click grammar) on what they send. Emitted remote-control events go to `sink`.
///
/// Devices of a headset class (the sound card's jack input, a USB headset's keys, BlueZ's AVRCP
/// device) or marked by a rule are owned: grabbed (EVIOCGRAB) while none of their keys is down, so
/// the desktop never sees their keys, and then every key they have is read: mapped keys go to the
/// interpreter, volume keys to the volume observers, the others to the owned-key observers. Of a
/// shared device only the mapped key codes are read (see `MappedKeyFilter`); typing keys are never
/// read from any device.
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

  private struct Reader {
    var info: OpenDevice
    var device: EvdevDevice
    var source: IOSource?
    /// The mapped keys: read whether the device is owned or shared.
    var filter: MappedKeyFilter
    /// The other keys read while the device is owned (volume and other non-typing keys).
    var ownedKeys: Set<UInt16>
    /// What is read from libevdev: the mapped keys, and the owned keys while they may be.
    var readFilter: MappedKeyFilter
    var intent: OwnershipIntent
    /// Waiting for every key to be up before grabbing.
    var waitingForKeysUp = false
    var status: DeviceStatus
    /// Whether "no one takes its volume keys" was logged.
    var loggedUnhandledVolume = false
  }

  public let settings: KeySettings
  private let loop: EventLoop
  private let scheduler: any Scheduler
  /// Whether key timestamps are put on CLOCK_MONOTONIC (the loop's clock).
  private let convertsToMonotonic: Bool
  private var logger: Logger
  private let watcher: UdevInputWatcher
  private var interpreter: KeyInterpreter!
  private var readers: [String: Reader] = [:]
  /// What is known of every input device seen (open or not), by path.
  private var statuses: [String: DeviceStatus] = [:]
  /// While the session is inactive (`suspend`): no device is open, none is opened.
  public private(set) var isSuspended = false
  private var deviceObservers: [(DeviceChange) -> Void] = []
  private var readObservers: [(ReadEvent) -> Void] = []
  private var volumeKeyObservers: [(VolumeKeyEvent) -> Void] = []
  private var ownedKeyObservers: [(OwnedKeyEvent) -> Void] = []

  /// `sink` receives every emitted event, on the loop thread.
  ///
  /// Key timestamps are read on the scheduler's clock. With the loop's scheduler (the default:
  /// CLOCK_MONOTONIC), a device that keeps CLOCK_REALTIME has its timestamps converted; with a
  /// scheduler of your own (virtual time), they are taken as the device reports them.
  public init(
    loop: EventLoop, scheduler: (any Scheduler)? = nil, settings: KeySettings = .standard, logger: Logger,
    sink: @escaping (RemoteControlEmission) -> Void
  ) {
    self.loop = loop
    self.scheduler = scheduler ?? loop.scheduler
    self.convertsToMonotonic = scheduler == nil
    self.settings = settings
    self.logger = logger
    watcher = UdevInputWatcher(loop: loop)
    interpreter = KeyInterpreter(settings: settings, scheduler: self.scheduler) { [logger] emission in
      logger.debug("evdev: \(emission)")
      sink(emission)
    }
  }

  deinit { stop() }

  /// Calls `observer` with every later change to the set of devices.
  public func addDeviceObserver(_ observer: @escaping (DeviceChange) -> Void) {
    deviceObservers.append(observer)
  }

  /// Calls `observer` with every mapped key event read and every resync, before the interpreter
  /// sees them.
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

  private func notify(_ change: DeviceChange) {
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

  private func setStatus(_ status: DeviceStatus) {
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
      let shared = readers.filter { !$0.value.info.isOwned && !$0.value.waitingForKeysUp }.keys.sorted()
      for path in shared { yieldToDesktop(path) }
    } else {
      let yielded = statuses.values.filter { $0.reasonCode == Self.desktopReasonCode }.map(\.path)
      for node in watcher.present() where yielded.contains(node.devnode) {
        statuses[node.devnode] = nil
        add(node)
      }
      for path in yielded where statuses[path]?.reasonCode == Self.desktopReasonCode {
        statuses[path] = nil
        add(path)  // not known to udev (a device added by path)
      }
      // What was pressed while the desktop had the device was the desktop's.
      for path in yielded { readers[path]?.device.discardPending() }
    }
  }

  /// The reason code of a device left to the desktop.
  public static let desktopReasonCode = "desktop"

  /// Closes a shared device: the desktop reads its keys.
  private func yieldToDesktop(_ path: String) {
    guard let desktop, let reader = readers[path] else { return }
    var status = reader.status
    remove(path, reason: "left to the desktop", forget: false)
    status.leaveAlone(
      because:
        "shared with the desktop, which handles media keys itself (\(desktop)): not read, its keys are the desktop's (\(status.reason))",
      code: Self.desktopReasonCode)
    setStatus(status)
  }

  /// Opens the devices present and follows hotplug. Logs, in one line, what it found.
  public func start() throws {
    try watcher.start(
      onAdd: { [weak self] node in self?.add(node) },
      onRemove: { [weak self] node in self?.remove(node.devnode, reason: "removed") })
    let found = openDevices
    if found.isEmpty {
      logger.notice("evdev: no device with media or headset keys yet; waiting for one to be plugged in")
    } else {
      logger.info(
        "evdev: reading \(found.map { "\($0.path) '\($0.identity.name)'" }.joined(separator: ", "))")
    }
    if !watcher.isMonitoring {
      logger.warning("evdev: no udev monitor: devices plugged in later are not seen")
    }
  }

  /// Closes every device and stops following hotplug. Seeks under way end now.
  public func stop() {
    watcher.stop()
    for path in readers.keys.sorted() { remove(path, reason: "stopped") }
    statuses.removeAll()
  }

  /// The session went inactive (another user's session is in front): every device is released
  /// (ungrabbed) and closed, and none is opened until `resume()`. Seeks under way end now.
  public func suspend() {
    guard !isSuspended else { return }
    isSuspended = true
    for path in readers.keys.sorted() { remove(path, reason: "session inactive", forget: false) }
    for var status in statuses.values {
      status.leaveAlone(
        because: "the session is inactive (another session is in front)", code: "session-inactive")
      setStatus(status)
    }
    logger.info("evdev: session inactive: every input device released and closed")
  }

  /// The session is active again: the devices present are looked at (and taken) again.
  public func resume() {
    guard isSuspended else { return }
    isSuspended = false
    statuses.removeAll()
    for node in watcher.present() { add(node) }
    logger.info("evdev: session active: reading \(readers.count) device(s) again")
  }

  /// Looks at one node by path (udev's description of it, when it has one, tells its USB
  /// interfaces).
  public func add(_ path: String) {
    add(watcher.node(devnode: path) ?? UdevInputWatcher.Node(devnode: path))
  }

  /// Looks at one node: opened and kept when it has mapped keys and no rule ignores it; owned
  /// (grabbed) when its rule or its class says so.
  public func add(_ node: UdevInputWatcher.Node) {
    let path = node.devnode
    guard readers[path] == nil else { return }
    guard !isSuspended else {
      setStatus(
        DeviceStatus(
          path: path, state: .leftAlone, reason: "the session is inactive (another session is in front)",
          reasonCode: "session-inactive"))
      return
    }
    let device: EvdevDevice
    do {
      device = try EvdevDevice(path: path)
    } catch {
      logger.debug("evdev: cannot open \(path): \(error)")
      setStatus(
        DeviceStatus(
          path: path, state: .leftAlone, reason: "cannot open: \(error)", reasonCode: "cannot-open"))
      notify(.skipped(path: path, reason: "\(error)"))
      return
    }
    let identity = device.identity
    let profile = settings.profile(for: identity)
    let mapped = MappedKeyFilter(profile: profile)
    let keys = mapped.mappedKeys(of: device)
    guard !profile.isIgnored, !keys.isEmpty else {
      device.close()
      let reason = profile.isIgnored ? "ignored by a device rule" : "no mapped key"
      logger.debug("evdev: \(path) '\(identity.name)': \(reason)")
      setStatus(
        DeviceStatus(
          path: path, identity: identity, state: .leftAlone,
          reason: profile.isIgnored ? "ignored by a device rule" : "no media or headset key",
          reasonCode: profile.isIgnored ? "ignored" : "no-media-key"))
      notify(.skipped(path: path, reason: reason))
      return
    }
    let isKeyboard = Self.letterKeys.contains { device.has(type: InputCode.EV_KEY, code: $0) }
    let intent = settings.ownership(
      of: profile, headsetClass: HeadsetClass.of(identity, usbInterfaces: node.usbInterfaces),
      isKeyboard: isKeyboard)
    // Owned, every key but the typing keys is read; shared, only the mapped ones.
    let ownedKeys =
      intent.grab
      ? Set(device.codes(ofType: InputCode.EV_KEY, upTo: MappedKeyFilter.keyMax)).subtracting(
        mapped.mappedKeys
      )
      .filter { !InputCode.isTypingKey($0) } : Set<UInt16>()
    let readFilter = MappedKeyFilter(keys: mapped.mappedKeys.union(ownedKeys))
    readFilter.restrict(device)
    let monotonic = device.setClockMonotonic()
    let info = OpenDevice(
      path: path, syspath: node.syspath, identity: identity, keys: keys, clockIsMonotonic: monotonic,
      source: "evdev:\(path)", isOwned: false)
    let status = DeviceStatus(
      path: path, identity: identity, state: .shared, reason: intent.explanation, reasonCode: intent.code,
      keys: keys.map(InputCode.keyName))
    var reader = Reader(
      info: info, device: device, source: nil, filter: mapped, ownedKeys: ownedKeys, readFilter: readFilter,
      intent: intent, status: status)
    do {
      reader.source = try loop.register(fd: device.fd, events: .readable) { [weak self] events in
        self?.ready(path, events)
      }
    } catch {
      device.close()
      logger.error("evdev: \(path): \(error)")
      return
    }
    readers[path] = reader
    interpreter.deviceAdded(info.source, identity: identity)
    logger.info(
      "evdev: opened \(path) '\(identity.name)' (\(Self.id(identity))) for \(keys.map(InputCode.keyName).joined(separator: ", "))\(monotonic ? "" : "; clock: realtime, converted")"
    )
    if intent.grab {
      if isKeyboard {
        logger.warning(
          "evdev: \(path) '\(identity.name)' has typing keys and a rule says grab = \"always\": while responderd holds it, the desktop gets none of its keys"
        )
      }
      takeOwnership(path)
    } else {
      setStatus(status)
    }
    notify(.opened(readers[path]?.info ?? info))
    if desktop != nil, let reader = readers[path], !reader.info.isOwned, !reader.waitingForKeysUp {
      yieldToDesktop(path)
    }
  }

  /// Grabs an owned device when none of its keys is down (checked before and after the grab: a key
  /// that went down in between gives the device back at once), then drops what was queued before
  /// the grab (the desktop had it too). With a key down it stays shared and is tried again when
  /// its events have been read. Another program's grab (EBUSY) leaves it shared for good.
  private func takeOwnership(_ path: String) {
    guard let reader = readers[path], !reader.device.isGrabbed else { return }
    let device = reader.device
    var status = reader.status
    do {
      if try !device.keysDown().isEmpty {
        keyIsDown(path)
        return
      }
      try device.grab()
      if try !device.keysDown().isEmpty {
        device.ungrab()
        keyIsDown(path)
        return
      }
    } catch {
      readers[path]!.waitingForKeysUp = false
      device.ungrab()
      // Shared for good: the other keys are not read (they are the desktop's).
      reader.filter.restrict(device)
      readers[path]!.ownedKeys = []
      readers[path]!.readFilter = reader.filter
      if error.errno == .resourceBusy {
        logger.notice(
          "evdev: \(path) '\(reader.info.identity.name)' is held by another program (EVIOCGRAB: busy): it stays shared; while that program holds it, every key of the device goes to that program alone and responderd gets none"
        )
        status.share(because: "another program holds it (EVIOCGRAB: busy)", code: "busy")
      } else {
        logger.warning(
          "evdev: \(path) '\(reader.info.identity.name)': cannot grab it (\(error)); it stays shared")
        status.share(because: "cannot grab it: \(error)", code: "grab-failed")
      }
      setStatus(status)
      return
    }
    device.discardPending()
    readers[path]!.waitingForKeysUp = false
    readers[path]!.info.isOwned = true
    status.own(because: reader.intent.explanation, code: reader.intent.code)
    status.keys = Set(reader.info.keys).union(reader.ownedKeys).sorted().map(InputCode.keyName)
    logger.info(
      "evdev: owning \(path) '\(reader.info.identity.name)' (\(reader.intent.explanation)): the desktop no longer sees its keys"
    )
    setStatus(status)
  }

  private func keyIsDown(_ path: String) {
    guard var status = readers[path]?.status else { return }
    let first = readers[path]!.waitingForKeysUp == false
    readers[path]!.waitingForKeysUp = true
    guard first else { return }
    logger.info("evdev: \(path): a key is down; it is grabbed once every key is up")
    status.share(
      because: "\(readers[path]!.intent.explanation); a key is down: grabbed once every key is up",
      code: "key-down")
    setStatus(status)
  }

  /// Closes a device (unplugged, removed, or on stop): seeks it had begun end now. A grabbed
  /// device is released first.
  public func remove(_ path: String, reason: String) {
    remove(path, reason: reason, forget: true)
  }

  private func remove(_ path: String, reason: String, forget: Bool) {
    if forget { statuses[path] = nil }
    guard let reader = readers.removeValue(forKey: path) else { return }
    reader.source?.remove()
    reader.device.close()
    interpreter.deviceRemoved(reader.info.source, at: scheduler.now)
    logger.info("evdev: closed \(path) '\(reader.info.identity.name)' (\(reason))")
    notify(.closed(path: path, reason: reason))
  }

  private func ready(_ path: String, _ events: IOEvents) {
    guard let reader = readers[path] else { return }
    // Read what is pending first, even on hang-up: a release may be in it.
    let dropped = reader.device.droppedCount
    let status = reader.device.read(accept: reader.readFilter.accepts) { frame in
      deliver(frame, from: reader)
    }
    if !readObservers.isEmpty {
      for _ in dropped..<reader.device.droppedCount {
        for observer in readObservers { observer(.resynced(path: path)) }
      }
    }
    if case .gone(let error) = status {
      remove(path, reason: "gone (\(error))")
    } else if events.isGone {
      remove(path, reason: "gone (hang-up)")
    } else if readers[path]?.waitingForKeysUp == true {
      takeOwnership(path)
    }
  }

  private func deliver(_ frame: EvdevFrame, from reader: Reader) {
    for event in frame.events where event.type == InputCode.EV_KEY {
      var event = event
      if convertsToMonotonic && !reader.info.clockIsMonotonic {
        event.time = Self.monotonic(fromRealtime: event.time)
      }
      guard reader.filter.accepts(type: event.type, code: event.code) else {
        // Read only while owned (before the grab, the desktop has them).
        if reader.info.isOwned, reader.ownedKeys.contains(event.code) { ownedKey(event, from: reader) }
        continue
      }
      logger.trace(
        "evdev: \(InputCode.keyName(event.code)) \(event.value == 1 ? "down" : event.value == 0 ? "up" : "repeat") at \(event.time) (\(reader.info.path))"
      )
      for observer in readObservers {
        observer(.key(path: reader.info.path, code: event.code, value: event.value))
      }
      interpreter.handle(event, from: reader.info.source)
    }
  }

  /// A key of an owned device that is not mapped: a volume key, or another one.
  private func ownedKey(_ event: RawInputEvent, from reader: Reader) {
    let path = reader.info.path
    if [InputCode.KEY_VOLUMEUP, InputCode.KEY_VOLUMEDOWN, InputCode.KEY_MUTE].contains(event.code) {
      guard !volumeKeyObservers.isEmpty else {
        if readers[path]?.loggedUnhandledVolume == false {
          readers[path]?.loggedUnhandledVolume = true
          logger.notice(
            "evdev: \(path) '\(reader.info.identity.name)': its volume keys are responderd's, but no sound-server adapter takes them: they do nothing"
          )
        }
        return
      }
      let volume = VolumeKeyEvent(
        code: event.code, value: event.value, timestamp: event.time, path: path, syspath: reader.info.syspath,
        identity: reader.info.identity)
      for observer in volumeKeyObservers { observer(volume) }
      return
    }
    guard event.value == 0 || event.value == 1 else { return }
    let key = OwnedKeyEvent(
      code: event.code, value: event.value, timestamp: event.time, path: path, identity: reader.info.identity)
    for observer in ownedKeyObservers { observer(key) }
  }

  /// Letter keys: a device with one of them is a keyboard (KEY_Q … KEY_P, KEY_A … KEY_L, KEY_Z …
  /// KEY_M).
  static let letterKeys: [UInt16] = Array(16...25) + Array(30...38) + Array(44...50)

  /// A CLOCK_REALTIME timestamp on CLOCK_MONOTONIC (never later than now).
  static func monotonic(fromRealtime time: Seconds) -> Seconds {
    var realtime = timespec()
    var monotonic = timespec()
    clock_gettime(CLOCK_REALTIME, &realtime)
    clock_gettime(CLOCK_MONOTONIC, &monotonic)
    let now = Seconds(monotonic.tv_sec) + Seconds(monotonic.tv_nsec) / 1e9
    let offset = Seconds(realtime.tv_sec) + Seconds(realtime.tv_nsec) / 1e9 - now
    return min(time - offset, now)
  }

  static func id(_ identity: InputDeviceIdentity) -> String {
    [identity.bustype, identity.vendor, identity.product].map { value in
      let digits = String(value, radix: 16)
      return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }.joined(separator: ":")
  }
}
