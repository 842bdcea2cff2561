import EventLoop
import InputCodes
import SystemCalls

/// One input device opened for reading, as the key reader uses it: its identity and keys, its
/// events as frames (raw evdev events between SYN_REPORTs), the keys down now, and the grab that
/// keeps its keys from every other reader. `EvdevDevice` is the real one (libevdev); the test
/// kit's `FakeInputDevice` is an in-process double whose keys a test presses, whose grab can be
/// refused and which can be unplugged.
public protocol InputDevice: AnyObject {
  /// "/dev/input/event7".
  var path: String { get }
  var identity: InputDeviceIdentity { get }
  /// Whether this reader holds the device exclusively.
  var isGrabbed: Bool { get }
  /// How many times events were lost (SYN_DROPPED), each followed by a resync.
  var droppedCount: Int { get }
  /// Whether the device reports events of `type`.
  func has(type: UInt16) -> Bool
  /// Whether the device reports `code` of `type`.
  func has(type: UInt16, code: UInt16) -> Bool
  /// Stops every event of `type` before it is read.
  func disable(type: UInt16)
  /// Stops every event of `code` of `type` before it is read.
  func disable(type: UInt16, code: UInt16)
  /// Asks for CLOCK_MONOTONIC timestamps; returns whether the device accepted.
  @discardableResult func setClockMonotonic() -> Bool
  /// Takes the device exclusively; `.resourceBusy` when another program holds it.
  func grab() throws(SystemError)
  /// Gives the device back to every reader.
  func ungrab()
  /// The keys down now (codes only, never logged).
  func keysDown() throws(SystemError) -> [UInt16]
  /// Reads and drops everything pending.
  @discardableResult func discardPending() -> EvdevReadStatus
  /// Reads everything pending and calls `frame` for each complete frame of accepted events.
  func read(accept: (UInt16, UInt16) -> Bool, frame: (EvdevFrame) -> Void) -> EvdevReadStatus
  /// Calls `ready` on `loop` whenever events are pending (`hungUp`: the device is gone), until
  /// `close()`.
  func watch(on loop: EventLoop, _ ready: @escaping (_ hungUp: Bool) -> Void) throws(SystemError)
  /// Stops watching, releases a grab and closes the device.
  func close()
}

extension InputDevice {
  /// The codes of `type` the device reports, among `0...maximum`.
  public func codes(ofType type: UInt16, upTo maximum: UInt16) -> [UInt16] {
    (0...maximum).filter { has(type: type, code: $0) }
  }
}

/// Where the key reader finds input devices: the nodes present, those plugged in and removed
/// later, and a node opened. `UdevInputWatcher` is the real one (libudev, `EvdevDevice`); the
/// test kit's `FakeInputDevices` plugs in and unplugs `FakeInputDevice`s.
public protocol InputDeviceSource: AnyObject {
  /// Starts following hotplug, then calls `onAdd` for each node present.
  func start(
    onAdd: @escaping (UdevInputWatcher.Node) -> Void, onRemove: @escaping (UdevInputWatcher.Node) -> Void
  ) throws
  /// Stops following hotplug.
  func stop()
  /// Whether hotplug is followed.
  var isMonitoring: Bool { get }
  /// The nodes present now, sorted by path.
  func present() -> [UdevInputWatcher.Node]
  /// What is known of the node at `devnode`, nil when nothing.
  func node(devnode: String) -> UdevInputWatcher.Node?
  /// Opens the device at `path`.
  func open(_ path: String) throws(SystemError) -> any InputDevice
}

extension UdevInputWatcher: InputDeviceSource {
  /// Opens `path` with libevdev.
  public func open(_ path: String) throws(SystemError) -> any InputDevice { try EvdevDevice(path: path) }
}
