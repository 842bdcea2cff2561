import EventTime
import InputCodes
import ResponderCore

/// One contact of a multitouch device, in device units, as evdev protocol B reports it.
public struct RawContact: Sendable, Equatable {
  public var slot: Int
  /// The kernel's tracking id: tells successive contacts of a slot apart.
  public var trackingID: Int32
  public var x: Int32
  public var y: Int32
  /// ABS_MT_TOUCH_MAJOR, when the device reports it.
  public var touchMajor: Int32?
  /// ABS_MT_PRESSURE, when the device reports it.
  public var pressure: Int32?

  public init(
    slot: Int, trackingID: Int32, x: Int32, y: Int32, touchMajor: Int32? = nil, pressure: Int32? = nil
  ) {
    self.slot = slot
    self.trackingID = trackingID
    self.x = x
    self.y = y
    self.touchMajor = touchMajor
    self.pressure = pressure
  }
}

/// What the decoder makes of a SYN_REPORT.
public enum MultitouchReport: Sendable, Equatable {
  /// The contacts on the surface after the frame, by slot, at the frame's time.
  case frame(time: Seconds, contacts: [RawContact])
  /// Events were dropped (SYN_DROPPED): the state is unknown, the contacts under way are lost.
  /// Slots that were in use report nothing more until they get a new contact.
  case dropped(time: Seconds)
}

/// Decodes evdev multitouch protocol B (ABS_MT_SLOT, ABS_MT_TRACKING_ID, ABS_MT_POSITION_X/Y,
/// ABS_MT_TOUCH_MAJOR, ABS_MT_PRESSURE, SYN_REPORT) into frames of contacts. Pure: feed it raw
/// events, from a device or a recording.
///
/// After SYN_DROPPED everything up to and including the next SYN_REPORT is discarded (the kernel's
/// rule) and `.dropped` is reported there; the contacts then on the surface are forgotten (their
/// slots stay silent until a new tracking id or a release), and until the next ABS_MT_SLOT the
/// current slot is unknown, so values are ignored.
public struct MultitouchDecoder: Sendable {
  private struct Slot: Sendable {
    var trackingID: Int32 = -1
    var x: Int32 = 0
    var y: Int32 = 0
    var touchMajor: Int32?
    var pressure: Int32?
    /// In use when events were dropped: ignored until it gets a new contact or is released.
    var stale = false
  }

  /// The most slots accepted (ABS_MT_SLOT values above are ignored).
  public static let maximumSlots = 256

  private var slots: [Slot] = [Slot()]
  private var current: Int? = 0
  private var dropping = false
  private var lastContacts: [RawContact] = []

  public init() {}

  /// The contacts on the surface after the last frame.
  public var contacts: [RawContact] { lastContacts }

  /// Feeds one event; returns a report at each SYN_REPORT (a frame only when something changed).
  public mutating func feed(_ event: RawInputEvent) -> MultitouchReport? {
    switch event.type {
    case InputCode.EV_SYN:
      switch event.code {
      case InputCode.SYN_DROPPED:
        dropping = true
        return nil
      case InputCode.SYN_REPORT:
        return report(at: event.time)
      default:
        return nil
      }
    case InputCode.EV_ABS:
      guard !dropping else { return nil }
      absolute(code: event.code, value: event.value)
      return nil
    default:
      return nil
    }
  }

  private mutating func absolute(code: UInt16, value: Int32) {
    if code == InputCode.ABS_MT_SLOT {
      guard value >= 0, Int(value) < Self.maximumSlots else {
        current = nil
        return
      }
      let index = Int(value)
      while slots.count <= index { slots.append(Slot()) }
      current = index
      return
    }
    guard let index = current else { return }
    switch code {
    case InputCode.ABS_MT_TRACKING_ID:
      if value < 0 {
        slots[index] = Slot()
      } else if slots[index].trackingID != value || slots[index].stale {
        var slot = Slot()
        slot.trackingID = value
        // Protocol B: position values not repeated for a new contact keep the slot's last ones.
        slot.x = slots[index].x
        slot.y = slots[index].y
        slots[index] = slot
      }
    case InputCode.ABS_MT_POSITION_X:
      slots[index].x = value
    case InputCode.ABS_MT_POSITION_Y:
      slots[index].y = value
    case InputCode.ABS_MT_TOUCH_MAJOR:
      slots[index].touchMajor = value
    case InputCode.ABS_MT_PRESSURE:
      slots[index].pressure = value
    default:
      break
    }
  }

  private mutating func report(at time: Seconds) -> MultitouchReport? {
    if dropping {
      dropping = false
      current = nil
      for index in slots.indices where slots[index].trackingID >= 0 { slots[index].stale = true }
      lastContacts = []
      return .dropped(time: time)
    }
    var contacts: [RawContact] = []
    for (index, slot) in slots.enumerated() where slot.trackingID >= 0 && !slot.stale {
      contacts.append(
        RawContact(
          slot: index, trackingID: slot.trackingID, x: slot.x, y: slot.y, touchMajor: slot.touchMajor,
          pressure: slot.pressure))
    }
    guard contacts != lastContacts else { return nil }
    lastContacts = contacts
    return .frame(time: time, contacts: contacts)
  }
}
