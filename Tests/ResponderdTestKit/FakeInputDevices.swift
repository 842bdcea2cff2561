import EvdevInput
import EventLoop
import EventTime
import InputCodes
import SystemCalls
import SystemPackage

/// Input devices in process, for the key reader (`InputDeviceSource`): devices plugged in and
/// unplugged as udev would tell of them, each a `FakeInputDevice` opened by path.
///
/// ```swift
/// let devices = FakeInputDevices()
/// let headset = FakeInputDevice.usbHeadset(time: harness.time)
/// devices.plugIn(headset)
/// let keys = harness.service.keysComponent(bus: nil, devices: devices, keyScheduler: harness.time)
/// ```
public final class FakeInputDevices: InputDeviceSource {
  /// The devices plugged in now, by path.
  public private(set) var pluggedIn: [String: FakeInputDevice] = [:]
  /// Whether hotplug can be followed (false: a system without a udev monitor).
  public var canMonitor = true
  public private(set) var isMonitoring = false
  private var onAdd: ((UdevInputWatcher.Node) -> Void)?
  private var onRemove: ((UdevInputWatcher.Node) -> Void)?

  public init() {}

  public func start(
    onAdd: @escaping (UdevInputWatcher.Node) -> Void, onRemove: @escaping (UdevInputWatcher.Node) -> Void
  ) throws {
    if canMonitor {
      self.onAdd = onAdd
      self.onRemove = onRemove
      isMonitoring = true
    }
    for node in present() { onAdd(node) }
  }

  public func stop() {
    isMonitoring = false
    onAdd = nil
    onRemove = nil
  }

  public func present() -> [UdevInputWatcher.Node] {
    pluggedIn.keys.sorted().compactMap { pluggedIn[$0]?.node }
  }

  public func node(devnode: String) -> UdevInputWatcher.Node? { pluggedIn[devnode]?.node }

  public func open(_ path: String) throws(SystemError) -> any InputDevice {
    guard let device = pluggedIn[path] else {
      throw SystemError("open", path: FilePath(path), errno: .noSuchFileOrDirectory)
    }
    try device.open()
    return device
  }

  /// Plugs `device` in: told to the reader while hotplug is followed.
  public func plugIn(_ device: FakeInputDevice) {
    pluggedIn[device.path] = device
    device.plugged(into: self)
    onAdd?(device.node)
  }

  /// `device` was unplugged (its own `unplug()` calls this).
  func removed(_ device: FakeInputDevice) {
    guard pluggedIn[device.path] === device else { return }
    pluggedIn[device.path] = nil
    onRemove?(device.node)
  }
}

/// One input device in process (`InputDevice`): its keys pressed and released by the test, each
/// press or release a frame of raw evdev events (EV_KEY, then SYN_REPORT) stamped on virtual time.
/// While responderd has not grabbed it the desktop sees its keys too (`desktopSaw`); a grab can
/// be refused (`grabRefusal`); keys can be down before it is opened (`hold`); unplugged, it hangs
/// up its reader after the events still queued, as the kernel does.
public final class FakeInputDevice: InputDevice {
  public let path: String
  public let identity: InputDeviceIdentity
  /// udev's `ID_USB_INTERFACES` (":010100:010200:030000:" for a USB audio device).
  public let usbInterfaces: String?
  /// The key codes it has.
  public let keys: Set<UInt16>
  /// The clock of its timestamps.
  public let time: VirtualScheduler
  /// The error a grab fails with (`.resourceBusy`: another program holds it); nil: granted.
  public var grabRefusal: Errno?
  public private(set) var isGrabbed = false
  public let droppedCount = 0
  /// Whether a reader has it open.
  public private(set) var isOpen = false
  public private(set) var isPluggedIn = false
  /// The key codes the desktop got (those pressed or released while it was not grabbed).
  public private(set) var desktopSaw: [UInt16] = []
  /// The key codes the reader stopped at the device (`disable`): it can never read them.
  public private(set) var disabledKeys: Set<UInt16> = []
  private var disabledTypes: Set<UInt16> = []
  private var down: Set<UInt16> = []
  private var queued: [EvdevFrame] = []
  private var ready: ((Bool) -> Void)?
  private weak var source: FakeInputDevices?

  /// A device at `path` named `name` with `keys`; `phys` "ALSA" makes it a sound card's jack.
  public init(
    path: String, name: String, keys: Set<UInt16>, time: VirtualScheduler, bustype: UInt16 = 3,
    vendor: UInt16 = 0, product: UInt16 = 0, phys: String = "", usbInterfaces: String? = nil
  ) {
    self.path = path
    identity = InputDeviceIdentity(name: name, bustype: bustype, vendor: vendor, product: product, phys: phys)
    self.usbInterfaces = usbInterfaces
    self.keys = keys
    self.time = time
  }

  /// A USB headset's buttons (a USB audio device: owned): KEY_MEDIA and the volume keys.
  public static func usbHeadset(time: VirtualScheduler, path: String = "/dev/input/event7") -> FakeInputDevice
  {
    FakeInputDevice(
      path: path, name: "C-Media USB Headphone Set",
      keys: [
        InputCode.KEY_MEDIA, InputCode.KEY_VOLUMEUP, InputCode.KEY_VOLUMEDOWN, InputCode.KEY_MUTE,
      ], time: time, vendor: 0x0d8c, product: 0x000c, usbInterfaces: ":010100:010200:030000:")
  }

  /// A keyboard with media keys (shared: its typing keys are never read).
  public static func keyboard(time: VirtualScheduler, path: String = "/dev/input/event3") -> FakeInputDevice {
    FakeInputDevice(
      path: path, name: "USB Keyboard",
      keys: Set(1...88).union([InputCode.KEY_PLAYPAUSE, InputCode.KEY_NEXTSONG]),
      time: time, vendor: 0x046d, product: 0xc31c)
  }

  /// How udev describes it.
  public var node: UdevInputWatcher.Node {
    UdevInputWatcher.Node(
      devnode: path, syspath: "/sys/devices/virtual/input/\(path.split(separator: "/").last ?? "")",
      usbInterfaces: usbInterfaces)
  }

  // MARK: InputDevice

  public func has(type: UInt16) -> Bool {
    type == InputCode.EV_SYN || (type == InputCode.EV_KEY && !keys.isEmpty)
  }
  public func has(type: UInt16, code: UInt16) -> Bool { type == InputCode.EV_KEY && keys.contains(code) }
  public func disable(type: UInt16) { disabledTypes.insert(type) }
  public func disable(type: UInt16, code: UInt16) {
    if type == InputCode.EV_KEY { disabledKeys.insert(code) }
  }
  public func setClockMonotonic() -> Bool { true }

  public func grab() throws(SystemError) {
    guard isOpen else { throw SystemError("EVIOCGRAB", path: FilePath(path), errno: .badFileDescriptor) }
    if let grabRefusal { throw SystemError("EVIOCGRAB", path: FilePath(path), errno: grabRefusal) }
    isGrabbed = true
  }

  public func ungrab() { isGrabbed = false }

  public func keysDown() throws(SystemError) -> [UInt16] {
    guard isPluggedIn else {
      throw SystemError("EVIOCGKEY", path: FilePath(path), errno: .operationNotSupportedByDevice)
    }
    return down.sorted()
  }

  public func discardPending() -> EvdevReadStatus {
    queued.removeAll()
    return isPluggedIn ? .drained : .gone(.operationNotSupportedByDevice)
  }

  public func read(accept: (UInt16, UInt16) -> Bool, frame: (EvdevFrame) -> Void) -> EvdevReadStatus {
    let frames = queued
    queued.removeAll()
    for pending in frames {
      let events = pending.events.filter { event in
        !disabledTypes.contains(event.type)
          && !(event.type == InputCode.EV_KEY && disabledKeys.contains(event.code))
          && accept(event.type, event.code)
      }
      if !events.isEmpty { frame(EvdevFrame(kind: .reported, events: events, time: pending.time)) }
    }
    return isPluggedIn ? .drained : .gone(.operationNotSupportedByDevice)
  }

  public func watch(on loop: EventLoop, _ ready: @escaping (Bool) -> Void) throws(SystemError) {
    guard isOpen else { throw SystemError("epoll_ctl(ADD)", path: FilePath(path), errno: .badFileDescriptor) }
    self.ready = ready
  }

  public func close() {
    ungrab()
    ready = nil
    queued.removeAll()
    isOpen = false
  }

  // MARK: The test's hands

  /// Presses `code` (a frame read at once).
  public func press(_ code: UInt16) {
    queue(code, value: 1)
    deliver()
  }

  /// Releases `code` (a frame read at once).
  public func release(_ code: UInt16) {
    queue(code, value: 0)
    deliver()
  }

  /// Presses `code`, holds it `duration` (virtual time), releases it.
  public func click(_ code: UInt16, holding duration: Seconds = 0.1) {
    press(code)
    time.advance(by: duration)
    release(code)
  }

  /// `code` is down before a reader opens the device (no event is read for it).
  public func hold(_ code: UInt16) { down.insert(code) }

  /// A press (1) or release (0) of `code` that the reader has not read yet (`deliver()` or the
  /// hang-up at `unplug()` gets it read).
  public func queue(_ code: UInt16, value: Int32) {
    guard isPluggedIn else { return }
    if value == 1 { down.insert(code) } else if value == 0 { down.remove(code) }
    if !isGrabbed { desktopSaw.append(code) }
    guard isOpen else { return }
    queued.append(
      EvdevFrame(
        kind: .reported,
        events: [RawInputEvent(time: time.now, type: InputCode.EV_KEY, code: code, value: value)],
        time: time.now))
  }

  /// Tells the reader events are pending, as epoll does.
  public func deliver() {
    guard !queued.isEmpty else { return }
    ready?(false)
  }

  /// Unplugs it: the reader reads what is queued and finds it gone, and udev says it was removed.
  public func unplug() {
    guard isPluggedIn else { return }
    isPluggedIn = false
    down.removeAll()
    ready?(true)
    source?.removed(self)
  }

  func plugged(into source: FakeInputDevices) {
    isPluggedIn = true
    self.source = source
  }

  func open() throws(SystemError) {
    guard isPluggedIn else { throw SystemError("open", path: FilePath(path), errno: .noSuchFileOrDirectory) }
    isOpen = true
  }
}
