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
/// Only mapped key codes leave this type (see `MappedKeyFilter`); devices are never grabbed.
public final class MediaKeyInput {
  /// A device being read.
  public struct OpenDevice: Sendable {
    public var path: String
    public var identity: InputDeviceIdentity
    /// The mapped keys it has: the only codes read from it.
    public var keys: [UInt16]
    public var clockIsMonotonic: Bool
    /// The source name its events carry ("evdev:/dev/input/event7").
    public var source: String
  }

  /// Something that happened to the set of devices.
  public enum DeviceChange: Sendable {
    case opened(OpenDevice)
    /// Opened to look at it, then closed: no mapped key, or ignored by a rule.
    case skipped(path: String, reason: String)
    case closed(path: String, reason: String)
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
    var filter: MappedKeyFilter
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
  private var deviceObservers: [(DeviceChange) -> Void] = []
  private var readObservers: [(ReadEvent) -> Void] = []

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

  private func notify(_ change: DeviceChange) {
    for observer in deviceObservers { observer(change) }
  }

  /// The devices being read, by path.
  public var openDevices: [OpenDevice] { readers.values.map(\.info).sorted { $0.path < $1.path } }

  /// Whether hotplug is followed.
  public var isMonitoring: Bool { watcher.isMonitoring }

  /// Opens the devices present and follows hotplug. Logs, in one line, what it found.
  public func start() throws {
    try watcher.start(
      onAdd: { [weak self] node in self?.add(node.devnode) },
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
  }

  /// Looks at one node: opened and kept when it has mapped keys and no rule ignores it.
  public func add(_ path: String) {
    guard readers[path] == nil else { return }
    let device: EvdevDevice
    do {
      device = try EvdevDevice(path: path)
    } catch {
      logger.debug("evdev: cannot open \(path): \(error)")
      notify(.skipped(path: path, reason: "\(error)"))
      return
    }
    let identity = device.identity
    let profile = settings.profile(for: identity)
    let filter = MappedKeyFilter(profile: profile)
    let keys = filter.mappedKeys(of: device)
    guard !profile.isIgnored, !keys.isEmpty else {
      device.close()
      let reason = profile.isIgnored ? "ignored by a device rule" : "no mapped key"
      logger.debug("evdev: \(path) '\(identity.name)': \(reason)")
      notify(.skipped(path: path, reason: reason))
      return
    }
    filter.restrict(device)
    let monotonic = device.setClockMonotonic()
    let info = OpenDevice(
      path: path, identity: identity, keys: keys, clockIsMonotonic: monotonic, source: "evdev:\(path)")
    var reader = Reader(info: info, device: device, source: nil, filter: filter)
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
    notify(.opened(info))
  }

  /// Closes a device (unplugged, removed, or on stop): seeks it had begun end now.
  public func remove(_ path: String, reason: String) {
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
    let status = reader.device.read(accept: reader.filter.accepts) { frame in
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
    }
  }

  private func deliver(_ frame: EvdevFrame, from reader: Reader) {
    for event in frame.events where reader.filter.accepts(type: event.type, code: event.code) {
      var event = event
      if convertsToMonotonic && !reader.info.clockIsMonotonic {
        event.time = Self.monotonic(fromRealtime: event.time)
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
