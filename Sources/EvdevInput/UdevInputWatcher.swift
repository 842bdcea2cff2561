import CUdev
import EventLoop
import SystemCalls
import SystemPackage

/// Finds evdev nodes (/dev/input/event*) through libudev and follows hotplug with a udev monitor
/// on the event loop: `onAdd` for every node present at start and every one added later,
/// `onRemove` when one goes away.
public final class UdevInputWatcher {
  /// A udev event for an evdev node.
  public struct Node: Hashable, Sendable {
    /// "/dev/input/event7".
    public var devnode: String
    /// "/sys/devices/…/input7/event7".
    public var syspath: String
    /// udev's `ID_USB_INTERFACES` of a USB device's input node (":010100:010200:030000:": the
    /// class, subclass and protocol of each interface of the USB device), nil on other buses.
    public var usbInterfaces: String?

    public init(devnode: String, syspath: String = "", usbInterfaces: String? = nil) {
      self.devnode = devnode
      self.syspath = syspath
      self.usbInterfaces = usbInterfaces
    }
  }

  private let loop: EventLoop
  private var udev: OpaquePointer?
  private var monitor: OpaquePointer?
  private var source: IOSource?

  public init(loop: EventLoop) {
    self.loop = loop
  }

  deinit { stop() }

  /// Starts the monitor, then lists the nodes present (so none added in between is missed);
  /// `onAdd` may thus see a node twice, which callers ignore.
  public func start(onAdd: @escaping (Node) -> Void, onRemove: @escaping (Node) -> Void) throws {
    guard udev == nil else { return }
    guard let udev = udev_new() else { throw SystemError("udev_new", errno: .last) }
    self.udev = udev
    if let monitor = udev_monitor_new_from_netlink(udev, "udev") {
      self.monitor = monitor
      udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
      if udev_monitor_enable_receiving(monitor) == 0 {
        let fd = FileDescriptor(rawValue: udev_monitor_get_fd(monitor))
        source = try loop.register(fd: fd, events: .readable) { [weak self] events in
          self?.receive(onAdd: onAdd, onRemove: onRemove, events: events)
        }
      }
    }
    for node in present() { onAdd(node) }
  }

  /// Whether hotplug is followed (the monitor could be set up).
  public var isMonitoring: Bool { source != nil }

  /// Stops the monitor and releases libudev.
  public func stop() {
    source?.remove()
    source = nil
    if let monitor { udev_monitor_unref(monitor) }
    monitor = nil
    if let udev { udev_unref(udev) }
    udev = nil
  }

  /// The evdev nodes present now, sorted by path.
  public func present() -> [Node] {
    guard let udev, let enumerate = udev_enumerate_new(udev) else { return [] }
    defer { udev_enumerate_unref(enumerate) }
    udev_enumerate_add_match_subsystem(enumerate, "input")
    udev_enumerate_add_match_sysname(enumerate, "event*")
    udev_enumerate_scan_devices(enumerate)
    var nodes: [Node] = []
    var entry = udev_enumerate_get_list_entry(enumerate)
    while let current = entry {
      if let syspath = udev_list_entry_get_name(current),
        let device = udev_device_new_from_syspath(udev, syspath)
      {
        if let node = Self.node(device) { nodes.append(node) }
        udev_device_unref(device)
      }
      entry = udev_list_entry_get_next(current)
    }
    return nodes.sorted { $0.devnode < $1.devnode }
  }

  private func receive(
    onAdd: (Node) -> Void, onRemove: (Node) -> Void, events: IOEvents
  ) {
    guard let monitor else { return }
    // The monitor socket is non-blocking: take every queued uevent.
    while let device = udev_monitor_receive_device(monitor) {
      defer { udev_device_unref(device) }
      guard let node = Self.node(device), let action = udev_device_get_action(device) else { continue }
      switch String(cString: action) {
      case "add": onAdd(node)
      case "remove": onRemove(node)
      default: break
      }
    }
  }

  /// The node of an evdev device ("event*" with a devnode); nil for others (the input* parents).
  private static func node(_ device: OpaquePointer) -> Node? {
    guard let sysname = udev_device_get_sysname(device), String(cString: sysname).hasPrefix("event"),
      let devnode = udev_device_get_devnode(device), let syspath = udev_device_get_syspath(device)
    else { return nil }
    return Node(
      devnode: String(cString: devnode), syspath: String(cString: syspath),
      usbInterfaces: udev_device_get_property_value(device, "ID_USB_INTERFACES").map { String(cString: $0) })
  }

  /// The node of `devnode` ("/dev/input/event7") as udev describes it now; nil when udev does not
  /// know it (or the watcher is not started).
  public func node(devnode: String) -> Node? {
    guard let udev, let name = devnode.split(separator: "/").last,
      let device = udev_device_new_from_subsystem_sysname(udev, "input", String(name))
    else { return nil }
    defer { udev_device_unref(device) }
    return Self.node(device)
  }
}
