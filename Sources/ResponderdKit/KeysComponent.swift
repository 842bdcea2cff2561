import DBus
import EvdevInput
import EventLoop
import EventTime
import InputCodes
import Logging
import RemoteControl
import ResponderConfig
import ResponderCore

/// Headset and media keys from evdev (`[keys]`): the devices with mapped keys are read on the
/// service's loop, and every emitted event is posted to the application as a remote-control event
/// (its first responder, then the chain of handlers). Headset-class devices are owned (grabbed):
/// their volume keys go to the volume key observers (the sound-server adapter), their other keys
/// to the owned-key observers: a `[command]` entry named after the key runs, and every press is
/// published (`KeyPressed`, which `responderctl monitor` shows). `/org/responderd/Daemon1/Devices`
/// (`org.responderd.Devices1`) tells what is done with each input device (`responderctl devices`).
public final class KeysComponent: ServiceComponent {
  public let componentName = "evdev"
  /// The object `responderctl devices` asks.
  public static let devicesPath = "/org/responderd/Daemon1/Devices"
  /// Its interface.
  public static let devicesInterface = "org.responderd.Devices1"
  /// The evdev reader, while started.
  public private(set) var input: MediaKeyInput?
  private var volumeKeyObservers: [(MediaKeyInput.VolumeKeyEvent) -> Void] = []
  private var ownedKeyObservers: [(MediaKeyInput.OwnedKeyEvent) -> Void] = []
  private var deviceObservers: [(MediaKeyInput.DeviceChange) -> Void] = []
  /// What the session lets the devices do, as last followed (open without a session).
  private var access = SessionComponent.InputGate.Devices.open
  private var desktop: String?
  private var devicesObject: DBusExportedObject?
  private let config: KeysConfig
  private let commands: [String: [String]]
  private let loop: EventLoop
  private let events: ServiceEvents
  private let children: ChildProcesses
  private let logger: Logger
  /// Lines the devices report adds for every device (other components: what the desktop does).
  public var reportNotes: [String] = []
  private var reportNoteSources: [() -> [String]] = []

  /// Adds lines the devices report (and `responderctl status`) shows after `reportNotes`, read
  /// each time the report is asked for (the `undo` handler's state).
  public func addReportNoteSource(_ source: @escaping () -> [String]) {
    reportNoteSources.append(source)
  }

  private let bus: BusComponent?
  private let session: SessionComponent?
  /// Where the devices are found (udev and libevdev when nil; a test's double).
  private let devices: (any InputDeviceSource)?
  /// The clock of the keys and the click grammar's timers (the loop's when nil).
  private let keyScheduler: (any Scheduler)?

  /// The keys component with the config's `[keys]`, its devices read on `loop` and their events
  /// posted to `events`; an owned device's other keys run their `commands` (`[command]`) as
  /// `children`. The devices report is served on `bus` (none without it). The devices follow
  /// `session`'s gate: none is opened before logind has answered, and they are released while
  /// another session is in front. `devices` and `keyScheduler` replace udev, libevdev and the
  /// loop's clock (a test's double and virtual time).
  public init(
    config: KeysConfig, commands: [String: [String]], bus: BusComponent?, session: SessionComponent?,
    loop: EventLoop, events: ServiceEvents, children: ChildProcesses, logger: Logger,
    devices: (any InputDeviceSource)? = nil, keyScheduler: (any Scheduler)? = nil
  ) {
    self.devices = devices
    self.keyScheduler = keyScheduler
    self.config = config
    self.session = session
    self.commands = commands
    self.bus = bus
    self.loop = loop
    self.events = events
    self.children = children
    self.logger = logger
    // Every key of an owned device that acted outside the chain (this component's other keys, the
    // volume component's volume keys) is published as KeyPressed, to the event watchers alone.
    events.addKeyActionObserver { [weak self] record in
      guard let self else { return }
      for watcher in self.events.eventWatchers {
        try? self.devicesObject?.emit(
          interface: Self.devicesInterface, signal: "KeyPressed",
          arguments: [
            .string(record.key), .string(record.path), .string(record.device), .double(record.timestamp),
            .string(record.action),
          ],
          destination: watcher)
      }
    }
  }

  public var dependencies: [ServiceComponent] { ([bus, session] as [ServiceComponent?]).compactMap { $0 } }

  /// Calls `observer`, on the loop thread, with every volume key event (KEY_VOLUMEUP,
  /// KEY_VOLUMEDOWN, KEY_MUTE: press, release, auto-repeat) of an owned device, with the device's
  /// identity and sysfs path (to find the headset's own sink). Volume keys of shared devices are
  /// the desktop's and never read. May be called before or after `start`.
  public func addVolumeKeyObserver(_ observer: @escaping (MediaKeyInput.VolumeKeyEvent) -> Void) {
    volumeKeyObservers.append(observer)
    input?.addVolumeKeyObserver(observer)
  }

  /// Calls `observer` with every press and release of an owned device's other keys
  /// (KEY_VOICECOMMAND, KEY_PHONE, KEY_MICMUTE, …). May be called before or after `start`.
  public func addOwnedKeyObserver(_ observer: @escaping (MediaKeyInput.OwnedKeyEvent) -> Void) {
    ownedKeyObservers.append(observer)
    input?.addOwnedKeyObserver(observer)
  }

  /// Calls `observer` with every change to the devices (opened, closed, status). May be called
  /// before or after `start`.
  public func addDeviceObserver(_ observer: @escaping (MediaKeyInput.DeviceChange) -> Void) {
    deviceObservers.append(observer)
    input?.addDeviceObserver(observer)
  }

  /// Every input device seen and what responderd does with it (empty while keys are off).
  public var deviceStatuses: [DeviceStatus] { input?.deviceStatuses ?? [] }

  /// What `responderctl devices` shows.
  public var report: DevicesReport {
    DevicesReport(
      devices: deviceStatuses.map(DevicesReport.Device.init), keysEnabled: config.enabled,
      suspended: input?.isSuspended ?? (access == .released),
      notes: reportNotes + reportNoteSources.flatMap { $0() })
  }

  /// The desktop that handles media keys itself, nil when none: while set, the devices responderd
  /// does not own are left to it (see `MediaKeyInput.setDesktop`). May be called before `start`.
  public func setDesktop(_ desktop: String?) {
    let changed = desktop != self.desktop
    self.desktop = desktop
    input?.setDesktop(desktop)
    if changed { try? devicesObject?.emit(interface: Self.devicesInterface, signal: "DevicesChanged") }
  }

  public func start() throws {
    bus?.withConnection { [weak self] connection in self?.exportDevicesObject(on: connection) }
    access = session?.gate.devices ?? .open
    session?.addGateObserver { [weak self] gate in self?.follow(gate.devices) }
    guard config.enabled else {
      logger.info("evdev: media and headset keys are off ([keys] enabled = false)")
      return
    }
    let input = MediaKeyInput(
      loop: loop, scheduler: keyScheduler, settings: config.settings, logger: logger, devices: devices
    ) { [weak self] emission in
      guard let self else { return }
      // An owned device's keys never reach the desktop: its presses are no desktop's call again.
      let owned = self.input?.isOwned(source: emission.source) ?? false
      self.events.postDeviceEvent(
        .remoteControl(emission.subtype, timestamp: emission.timestamp, source: emission.source),
        desktopSeesDevice: !owned, sincePress: emission.timestamp - emission.pressedAt)
    }
    for observer in volumeKeyObservers { input.addVolumeKeyObserver(observer) }
    for observer in ownedKeyObservers { input.addOwnedKeyObserver(observer) }
    for observer in deviceObservers { input.addDeviceObserver(observer) }
    input.addOwnedKeyObserver { [weak self] key in
      guard key.value == 1 else { return }
      self?.ownedKeyPressed(key)
    }
    input.addDeviceObserver { [weak self] change in
      guard case .status = change else { return }
      try? self?.devicesObject?.emit(interface: Self.devicesInterface, signal: "DevicesChanged")
    }
    self.input = input
    input.setDesktop(desktop)
    switch access {
    case .waitingForLogind: return  // opened once the session is known (`follow`)
    case .released: input.suspend()
    case .open: break
    }
    // Opened once the bus name is asked for: udev and the devices take longer than the bus.
    guard let bus else { return try input.start() }
    bus.afterNameRequested { [weak self, weak input] in
      guard let self, let input, self.input === input else { return }
      do {
        try input.start()
      } catch {
        self.logger.error("evdev: \(error)")
      }
    }
  }

  /// Follows what the session lets the devices do: opened once the session is known (or left
  /// closed while another session is in front), released and taken again as it goes and comes.
  private func follow(_ devices: SessionComponent.InputGate.Devices) {
    let before = access
    access = devices
    guard let input, devices != before else { return }
    switch (before, devices) {
    case (.waitingForLogind, _):
      if devices == .released { input.suspend() }
      do {
        try input.start()
      } catch {
        logger.error("evdev: \(error)")
      }
    case (_, .released), (_, .waitingForLogind): input.suspend()
    case (_, .open): input.resume()
    }
  }

  public func stop() {
    input?.stop()
    input = nil
    devicesObject?.unexport()
    devicesObject = nil
  }

  /// A press of an owned device's other key: its `[command]` runs when there is one; the press is
  /// published either way, with what was done.
  private func ownedKeyPressed(_ key: MediaKeyInput.OwnedKeyEvent) {
    let name = InputCode.keyName(key.code)
    var action = "none (no [command] \(name))"
    if let argv = commands[name] {
      do {
        try children.spawn(
          argv,
          extraEnvironment: [
            "RESPONDERD_KEY": name, "RESPONDERD_DEVICE": key.identity.name,
            "RESPONDERD_EVENT_TIMESTAMP": formatSeconds(key.timestamp, decimals: 6),
          ]
        ) { [logger] status in
          if status != 0 { logger.notice("command for \(name) (\(argv[0])) exited with status \(status)") }
        }
        action = "command \(argv[0])"
      } catch {
        logger.warning("command for \(name): cannot start '\(argv[0])': \(error)")
        action = "command \(argv[0]) failed: \(error)"
      }
    }
    logger.debug("evdev: \(name) on \(key.path) (owned): \(action)")
    events.publish(
      KeyActionRecord(
        key: name, timestamp: key.timestamp, path: key.path, device: key.identity.name, action: action))
  }

  private func exportDevicesObject(on connection: any MessageBus) {
    var interface = DBusInterface(
      Self.devicesInterface,
      methods: [
        DBusMethod("GetDevices", out: "a{sv}aa{sv}", outNames: ["summary", "devices"]) { [weak self] _ in
          (self?.report ?? DevicesReport(devices: [])).dbusArguments
        }
      ],
      signals: [
        DBusSignalInfo("DevicesChanged"),
        DBusSignalInfo(
          "KeyPressed", signature: "sssds", argumentNames: ["key", "path", "device", "timestamp", "action"]),
      ])
    interface.doc =
      "The input devices responderd sees (GetDevices: owned, shared or left alone, and why) and the presses of owned devices' keys that act outside the chain (KeyPressed, sent only to the connections that called Daemon1.WatchEvents): the other keys (their [command]) and the volume keys (what they did to the sound server's volume)."
    do {
      devicesObject = try connection.export(path: Self.devicesPath, interfaces: [interface])
    } catch {
      logger.error("evdev: cannot export \(Self.devicesPath): \(error)")
    }
  }
}
