import CEvdev
import EventLoop
import EventTime
import InputCodes
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The events of one device between two SYN_REPORTs (the SYN_REPORT itself not included).
public struct EvdevFrame: Sendable {
  /// How the frame came to be.
  public enum Kind: Sendable {
    /// A frame the kernel reported (ended by SYN_REPORT).
    case reported
    /// Events libevdev synthesized after a SYN_DROPPED to bring the state up to date.
    case resync
    /// Events reported before a SYN_DROPPED whose SYN_REPORT never came (the frame may be partial).
    case interrupted
  }

  public var kind: Kind
  public var events: [RawInputEvent]
  /// The time of the frame's SYN_REPORT (or of its last event when it has none).
  public var time: Seconds

  public init(kind: Kind, events: [RawInputEvent], time: Seconds) {
    self.kind = kind
    self.events = events
    self.time = time
  }
}

/// What reading a device found.
public enum EvdevReadStatus: Equatable, Sendable {
  /// Everything pending was read.
  case drained
  /// The device is gone (ENODEV or another fatal error): close it.
  case gone(Errno)
}

/// One event as `EvdevDevice.readEvents` hands it over, with where it stands in the stream.
public enum EvdevReadItem: Sendable {
  /// An event the kernel reported.
  case reported(RawInputEvent)
  /// The SYN_DROPPED: events were lost; libevdev's resync follows.
  case dropped(RawInputEvent)
  /// An event libevdev synthesized after a SYN_DROPPED to bring the state up to date.
  case resync(RawInputEvent)
  /// The resync is over: what follows comes from the kernel again.
  case resyncEnded
}

/// One evdev device node opened read-only with libevdev: its identity and capabilities, and its
/// events as frames, SYN_DROPPED resync included. A reader may hold it exclusively (`grab()`,
/// EVIOCGRAB): other readers, the compositor among them, then get none of its events; `close()`
/// releases the grab first.
///
/// Not specific to keys: touchscreens and other devices use it too. A reader narrows what it
/// receives with `disable(type:)` / `disable(type:code:)` (libevdev then drops those events
/// before they reach Swift) and the `accept` filter of `read`.
public final class EvdevDevice: InputDevice {
  public let path: String
  public let fd: FileDescriptor
  private var device: OpaquePointer?
  public let identity: InputDeviceIdentity
  /// Whether timestamps are on CLOCK_MONOTONIC (the kernel accepted EVIOCSCLOCKID); when false
  /// they are on CLOCK_REALTIME, the kernel's default.
  public private(set) var clockIsMonotonic = false
  /// How many SYN_DROPPED the device reported (each followed by a resync).
  public private(set) var droppedCount = 0
  private var partial: [RawInputEvent] = []
  /// The loop's watch of the descriptor (`watch(on:_:)`), until `close()`.
  private var source: IOSource?

  /// Opens `path` (O_RDONLY | O_NONBLOCK | O_CLOEXEC) and reads its description with libevdev.
  /// The error names the call that failed and the device.
  public init(path: String) throws(SystemError) {
    self.path = path
    let fd = try FileDescriptor.openForReading(FilePath(path), options: .nonBlocking)
    guard let device = libevdev_new() else {
      try? fd.close()
      throw SystemError("libevdev_new", path: FilePath(path), errno: .noMemory)
    }
    libevdev_set_device_log_function(device, evdevLogHandler, LIBEVDEV_LOG_ERROR, nil)
    let rc = libevdev_set_fd(device, fd.rawValue)
    guard rc == 0 else {
      libevdev_free(device)
      try? fd.close()
      throw SystemError("libevdev_set_fd", path: FilePath(path), errno: Errno(rawValue: -rc))
    }
    self.fd = fd
    self.device = device
    identity = InputDeviceIdentity(
      name: libevdev_get_name(device).map { String(cString: $0) } ?? "",
      bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)),
      vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
      product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
      version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device)),
      phys: libevdev_get_phys(device).map { String(cString: $0) } ?? "")
  }

  deinit { close() }

  /// Releases the grab, frees libevdev's state and closes the descriptor (remove it from the event
  /// loop first).
  public func close() {
    source?.remove()
    source = nil
    guard let device else { return }
    ungrab()
    libevdev_free(device)
    self.device = nil
    try? fd.close()
  }

  public var isOpen: Bool { device != nil }

  /// Calls `ready` on `loop` whenever events are pending (`hungUp`: the device hung up or
  /// failed), until `close()`.
  public func watch(on loop: EventLoop, _ ready: @escaping (_ hungUp: Bool) -> Void) throws(SystemError) {
    source?.remove()
    source = try loop.register(fd: fd, events: .readable) { events in ready(events.isGone) }
  }

  /// Whether this reader holds the device exclusively (EVIOCGRAB).
  public private(set) var isGrabbed = false

  /// Takes the device exclusively (EVIOCGRAB): from now on only this descriptor gets its events.
  /// Throws `SystemError` with `.resourceBusy` when another program holds it already.
  public func grab() throws(SystemError) {
    guard let device else { throw SystemError("EVIOCGRAB", path: FilePath(path), errno: .badFileDescriptor) }
    guard !isGrabbed else { return }
    let rc = libevdev_grab(device, LIBEVDEV_GRAB)
    guard rc == 0 else { throw SystemError("EVIOCGRAB", path: FilePath(path), errno: Errno(rawValue: -rc)) }
    isGrabbed = true
  }

  /// Gives the device back to every reader (a no-op when it is not grabbed; a device already gone
  /// has released it).
  public func ungrab() {
    guard let device, isGrabbed else { return }
    isGrabbed = false
    _ = libevdev_grab(device, LIBEVDEV_UNGRAB)
  }

  /// The keys the kernel says are down now (EVIOCGKEY), among every key the device has: not only
  /// the ones this reader reads. Codes only: used to decide when a grab is safe, never logged.
  public func keysDown() throws(SystemError) -> [UInt16] {
    var bits = [UInt8](repeating: 0, count: Int(MappedKeyFilter.keyMax + 1) / 8)
    let rc = bits.withUnsafeMutableBufferPointer {
      rsp_evdev_key_state(fd.rawValue, $0.baseAddress, UInt($0.count))
    }
    guard rc >= 0 else { throw SystemError("EVIOCGKEY", path: FilePath(path), errno: .last) }
    var down: [UInt16] = []
    for (index, byte) in bits.enumerated() where byte != 0 {
      for bit in 0..<8 where byte & (1 << bit) != 0 { down.append(UInt16(index * 8 + bit)) }
    }
    return down
  }

  /// Reads and drops everything pending (a SYN_DROPPED's resync included), so that what was
  /// queued before a grab, which other readers got as well, is not handled a second time.
  /// Returns the status of the read, as `readEvents` does.
  @discardableResult
  public func discardPending() -> EvdevReadStatus {
    partial.removeAll(keepingCapacity: true)
    let status = readEvents { _ in }
    partial.removeAll(keepingCapacity: true)
    return status
  }

  /// Asks for CLOCK_MONOTONIC timestamps; returns whether the device accepted (some refuse:
  /// their timestamps stay on CLOCK_REALTIME, see `clockIsMonotonic`).
  @discardableResult
  public func setClockMonotonic() -> Bool {
    guard let device else { return false }
    clockIsMonotonic = libevdev_set_clock_id(device, CLOCK_MONOTONIC) == 0
    return clockIsMonotonic
  }

  /// Whether the device reports events of `type`.
  public func has(type: UInt16) -> Bool {
    guard let device else { return false }
    return libevdev_has_event_type(device, UInt32(type)) == 1
  }

  /// Whether the device reports `code` of `type`.
  public func has(type: UInt16, code: UInt16) -> Bool {
    guard let device else { return false }
    return libevdev_has_event_code(device, UInt32(type), UInt32(code)) == 1
  }

  /// Whether the device has the input property (INPUT_PROP_DIRECT = 1, …).
  public func has(property: UInt32) -> Bool {
    guard let device else { return false }
    return libevdev_has_property(device, property) == 1
  }

  /// The codes of `type` the device reports, among `0...maximum`.
  public func codes(ofType type: UInt16, upTo maximum: UInt16) -> [UInt16] {
    (0...maximum).filter { has(type: type, code: $0) }
  }

  /// The range and resolution of an absolute axis; nil when the device lacks it.
  public func absoluteAxis(_ code: UInt16) -> (minimum: Int32, maximum: Int32, resolution: Int32)? {
    guard let device, has(type: InputCode.EV_ABS, code: code) else { return nil }
    return (
      libevdev_get_abs_minimum(device, UInt32(code)), libevdev_get_abs_maximum(device, UInt32(code)),
      libevdev_get_abs_resolution(device, UInt32(code))
    )
  }

  /// The number of multitouch slots (nil without ABS_MT_SLOT).
  public var slotCount: Int? {
    guard let device else { return nil }
    let count = libevdev_get_num_slots(device)
    return count > 0 ? Int(count) : nil
  }

  /// Stops every event of `type` (not EV_SYN) at libevdev: it is read from the kernel and dropped
  /// there, never handed over, and left out of SYN_DROPPED resyncs.
  public func disable(type: UInt16) {
    guard let device, type != InputCode.EV_SYN else { return }
    _ = libevdev_disable_event_type(device, UInt32(type))
  }

  /// Stops every event of `code` of `type` at libevdev (see `disable(type:)`).
  public func disable(type: UInt16, code: UInt16) {
    guard let device else { return }
    _ = libevdev_disable_event_code(device, UInt32(type), UInt32(code))
  }

  /// Reads everything pending and calls `frame` for each complete frame. After a SYN_DROPPED,
  /// the events before it come as an `.interrupted` frame and libevdev's state delta as
  /// `.resync` frames. Events for which `accept(type, code)` is false are dropped before they are
  /// stored anywhere; SYN events never reach `frame`.
  ///
  /// Timestamps are the device's (see `clockIsMonotonic`).
  public func read(
    accept: (UInt16, UInt16) -> Bool = { _, _ in true }, frame: (EvdevFrame) -> Void
  ) -> EvdevReadStatus {
    readEvents { item in
      let event: RawInputEvent
      let kind: EvdevFrame.Kind
      switch item {
      case .dropped:
        // What came since the last SYN_REPORT is cut short.
        flush(.interrupted, frame)
        return
      case .resyncEnded:
        flush(.resync, frame)
        return
      case .reported(let reported):
        (event, kind) = (reported, .reported)
      case .resync(let synthesized):
        (event, kind) = (synthesized, .resync)
      }
      if event.type == InputCode.EV_SYN {
        if event.code == InputCode.SYN_REPORT { flush(kind, frame, time: event.time) }
        return
      }
      guard accept(event.type, event.code) else { return }
      partial.append(event)
    }
  }

  /// Reads everything pending and hands each event over as it comes, SYN events included: the
  /// kernel's events, a SYN_DROPPED, then libevdev's resync events (ended by their SYN_REPORT when
  /// there are any) and `.resyncEnded`. Counts the SYN_DROPPED in `droppedCount`.
  ///
  /// Timestamps are the device's (see `clockIsMonotonic`).
  public func readEvents(_ handle: (EvdevReadItem) -> Void) -> EvdevReadStatus {
    guard let device else { return .gone(.badFileDescriptor) }
    let normal = LIBEVDEV_READ_FLAG_NORMAL.rawValue
    let sync = LIBEVDEV_READ_FLAG_SYNC.rawValue
    let statusSync = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)
    var flags = normal
    var event = input_event()
    var first = true
    while true {
      // Once libevdev's queue is empty, look (poll) before reading again: the read that would only
      // say EAGAIN is skipped. It comes after the events were handed over (a key's action is
      // already under way) and, on an emulated device, costs a round trip to the emulator.
      if flags == normal && !first && libevdev_has_event_pending(device) == 0 { return .drained }
      first = false
      let rc = libevdev_next_event(device, flags, &event)
      let failure = rc < 0 ? Errno(rawValue: -rc) : nil
      if failure == .resourceTemporarilyUnavailable {
        if flags == sync {
          flags = normal  // the resync delta is over; read on in normal mode
          handle(.resyncEnded)
          continue
        }
        return .drained
      }
      if failure == .interrupted { continue }
      if let failure { return .gone(failure) }
      let time = Seconds(event.time.tv_sec) + Seconds(event.time.tv_usec) / 1_000_000
      let raw = RawInputEvent(time: time, type: event.type, code: event.code, value: event.value)
      if rc == statusSync && flags == normal {
        // This is the SYN_DROPPED.
        droppedCount += 1
        flags = sync
        handle(.dropped(raw))
      } else {
        handle(flags == sync ? .resync(raw) : .reported(raw))
      }
    }
  }

  private func flush(_ kind: EvdevFrame.Kind, _ frame: (EvdevFrame) -> Void, time: Seconds? = nil) {
    guard !partial.isEmpty else { return }
    let events = partial
    partial.removeAll(keepingCapacity: true)
    frame(EvdevFrame(kind: kind, events: events, time: time ?? events.last!.time))
  }
}

/// Drops libevdev's messages for a device (instead of printing them): their text could name
/// event codes.
private let evdevLogHandler: libevdev_device_log_func_t = { _, _, _, _, _, _, _, _ in }
