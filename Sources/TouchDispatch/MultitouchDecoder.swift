import EventTime
import InputCodes
import ResponderCore

/// The values of the multitouch axes of one contact (ABS_MT_TOUCH_MAJOR … ABS_MT_TOOL_Y, tracking
/// id and slot aside), as the kernel keeps them per slot: nil for an axis never sent.
public struct MultitouchAxes: Sendable, Equatable {
  /// The first and last axis kept (ABS_MT_TOUCH_MAJOR, ABS_MT_TOOL_Y).
  public static let codes: ClosedRange<UInt16> = 0x30...0x3d
  private var values: [Int32?] = Array(repeating: nil, count: codes.count)

  public init() {}

  /// The value of `code` (one of `codes`; nil for any other code or an axis never sent).
  public subscript(code: UInt16) -> Int32? {
    get { Self.codes.contains(code) ? values[Int(code - Self.codes.lowerBound)] : nil }
    set {
      guard Self.codes.contains(code), code != InputCode.ABS_MT_TRACKING_ID else { return }
      values[Int(code - Self.codes.lowerBound)] = newValue
    }
  }
}

/// One contact of a multitouch device, in device units, as evdev protocol B reports it (protocol A
/// contacts are given slots and tracking ids by the decoder).
public struct RawContact: Sendable, Equatable {
  public var slot: Int
  /// The kernel's tracking id: tells successive contacts of a slot apart.
  public var trackingID: Int32
  /// Every multitouch axis of the contact: the values sent for it, and for the axes it did not
  /// send, the last ones its slot had (the kernel's rule).
  public var axes: MultitouchAxes
  /// ABS_MT_POSITION_X (0 when never sent).
  public var x: Int32 {
    get { axes[InputCode.ABS_MT_POSITION_X] ?? 0 }
    set { axes[InputCode.ABS_MT_POSITION_X] = newValue }
  }
  /// ABS_MT_POSITION_Y (0 when never sent).
  public var y: Int32 {
    get { axes[InputCode.ABS_MT_POSITION_Y] ?? 0 }
    set { axes[InputCode.ABS_MT_POSITION_Y] = newValue }
  }
  /// ABS_MT_TOUCH_MAJOR, when the device reports it.
  public var touchMajor: Int32? {
    get { axes[InputCode.ABS_MT_TOUCH_MAJOR] }
    set { axes[InputCode.ABS_MT_TOUCH_MAJOR] = newValue }
  }
  /// ABS_MT_PRESSURE, when the device reports it.
  public var pressure: Int32? {
    get { axes[InputCode.ABS_MT_PRESSURE] }
    set { axes[InputCode.ABS_MT_PRESSURE] = newValue }
  }

  public init(
    slot: Int, trackingID: Int32, x: Int32, y: Int32, touchMajor: Int32? = nil, pressure: Int32? = nil
  ) {
    self.slot = slot
    self.trackingID = trackingID
    axes = MultitouchAxes()
    self.x = x
    self.y = y
    self.touchMajor = touchMajor
    self.pressure = pressure
  }

  /// A contact with every axis given.
  public init(slot: Int, trackingID: Int32, axes: MultitouchAxes) {
    self.slot = slot
    self.trackingID = trackingID
    self.axes = axes
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

/// Decodes evdev multitouch into frames of contacts. Pure: feed it raw events, from a device or a
/// recording; the live reader and the replay tool both use it.
///
/// Protocol B (ABS_MT_SLOT, ABS_MT_TRACKING_ID, the ABS_MT_* axes, SYN_REPORT): each slot keeps
/// the last value of every axis, as the kernel does, through lifts too; a new contact in a slot
/// starts from those values and sends only the ones that differ (the kernel drops repeated
/// values), so a quick second tap where the first lifted may send a tracking id and nothing else.
///
/// Protocol A (no slots: each contact's values followed by SYN_MT_REPORT, the frame by SYN_REPORT;
/// older N-Trig and eGalax panels): the first SYN_MT_REPORT switches the decoder to it. Contacts
/// are tracked from frame to frame as libmtdev does: by their ABS_MT_TRACKING_ID when the device
/// sends one, else each contact of the new frame is matched to one of the last frame so that the
/// sum of squared distances is the least; unmatched old contacts lifted, unmatched new ones are new
/// contacts in the lowest free slot, with a tracking id of their own.
///
/// After SYN_DROPPED everything up to and including the next SYN_REPORT is discarded (the kernel's
/// rule) and `.dropped` is reported there; the contacts then on the surface are forgotten (their
/// slots stay silent until a new tracking id or a release), and until the next ABS_MT_SLOT the
/// current slot is unknown, so values are ignored.
public struct MultitouchDecoder: Sendable {
  private struct Slot: Sendable {
    var trackingID: Int32 = -1
    var axes = MultitouchAxes()
    /// In use when events were dropped: ignored until it gets a new contact or is released.
    var stale = false
  }

  /// The most slots accepted (ABS_MT_SLOT values above are ignored).
  public static let maximumSlots = 256

  private var slots: [Slot] = [Slot()]
  private var current: Int? = 0
  private var dropping = false
  private var lastContacts: [RawContact] = []
  private var protocolA = ProtocolATracker()
  /// Whether a SYN_MT_REPORT was seen (and no ABS_MT_SLOT): the device speaks protocol A.
  public private(set) var isProtocolA = false
  private var sawSlot = false

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
      case InputCode.SYN_MT_REPORT:
        guard !dropping else { return nil }
        if !sawSlot { isProtocolA = true }
        if isProtocolA { protocolA.endContact() }
        return nil
      case InputCode.SYN_REPORT:
        return report(at: event.time)
      default:
        return nil
      }
    case InputCode.EV_ABS:
      guard !dropping else { return nil }
      if isProtocolA {
        protocolA.absolute(code: event.code, value: event.value)
      } else {
        absolute(code: event.code, value: event.value)
        // A protocol A device's first contact, before its first SYN_MT_REPORT: kept for it too.
        if !sawSlot { protocolA.absolute(code: event.code, value: event.value) }
      }
      return nil
    default:
      return nil
    }
  }

  private mutating func absolute(code: UInt16, value: Int32) {
    if code == InputCode.ABS_MT_SLOT {
      sawSlot = true
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
      // The slot's axis values stay as they are, through a lift and into the next contact.
      if value < 0 {
        slots[index].trackingID = -1
        slots[index].stale = false
      } else if slots[index].trackingID != value || slots[index].stale {
        slots[index].trackingID = value
        slots[index].stale = false
      }
    case MultitouchAxes.codes:
      slots[index].axes[code] = value
    default:
      break
    }
  }

  private mutating func report(at time: Seconds) -> MultitouchReport? {
    if dropping {
      dropping = false
      current = isProtocolA ? 0 : nil
      for index in slots.indices where slots[index].trackingID >= 0 { slots[index].stale = true }
      protocolA.drop()
      lastContacts = []
      return .dropped(time: time)
    }
    var contacts: [RawContact] = []
    if isProtocolA {
      contacts = protocolA.endFrame()
    } else {
      if !sawSlot { protocolA.discardPending() }
      for (index, slot) in slots.enumerated() where slot.trackingID >= 0 && !slot.stale {
        contacts.append(RawContact(slot: index, trackingID: slot.trackingID, axes: slot.axes))
      }
    }
    guard contacts != lastContacts else { return nil }
    lastContacts = contacts
    return .frame(time: time, contacts: contacts)
  }
}

/// Protocol A to tracked contacts, with libmtdev's rule (see `MultitouchDecoder`).
struct ProtocolATracker: Sendable {
  /// The contact being read (values since the last SYN_MT_REPORT), and whether anything came.
  private var pending = MultitouchAxes()
  private var pendingTrackingID: Int32?
  private var pendingHasValues = false
  /// The contacts of the frame being read.
  private var frame: [(axes: MultitouchAxes, trackingID: Int32?)] = []
  /// The contacts of the last frame, with the tracking id the device gave each (if it gives any).
  private var previous: [(contact: RawContact, deviceID: Int32?)] = []
  /// The tracking id the next new contact gets.
  private var nextTrackingID: Int32 = 0

  /// The most contacts matched by least total distance exactly; beyond, nearest pairs first.
  static let exactMatchLimit = 10

  mutating func absolute(code: UInt16, value: Int32) {
    if code == InputCode.ABS_MT_TRACKING_ID {
      pendingTrackingID = value
      pendingHasValues = true
    } else if MultitouchAxes.codes.contains(code) {
      pending[code] = value
      pendingHasValues = true
    }
  }

  /// The most contacts of a frame kept (libmtdev's DIM_FINGER); later ones are dropped.
  static let maximumContacts = 32

  /// SYN_MT_REPORT: the contact read so far is complete (an empty one says "no contact").
  mutating func endContact() {
    if pendingHasValues, frame.count < Self.maximumContacts, pending[InputCode.ABS_MT_POSITION_X] != nil,
      pending[InputCode.ABS_MT_POSITION_Y] != nil, (pendingTrackingID ?? 0) >= 0
    {
      frame.append((pending, pendingTrackingID))
    }
    discardPending()
  }

  mutating func discardPending() {
    pending = MultitouchAxes()
    pendingTrackingID = nil
    pendingHasValues = false
  }

  /// SYN_DROPPED: the contacts under way are forgotten.
  mutating func drop() {
    discardPending()
    frame.removeAll()
    previous.removeAll()
  }

  /// SYN_REPORT: the frame's contacts, matched to the last frame's.
  mutating func endFrame() -> [RawContact] {
    // Values after the last SYN_MT_REPORT of a frame belong to no contact (the kernel's protocol A
    // ends each contact with SYN_MT_REPORT).
    discardPending()
    let new = frame
    frame.removeAll()
    var assigned = [RawContact?](repeating: nil, count: new.count)
    if new.contains(where: { $0.trackingID != nil }) {
      // The device tracks its contacts: the same device id is the same contact (once a frame).
      var taken = Set<Int>()
      for (index, contact) in new.enumerated() {
        if let id = contact.trackingID, let old = previous.first(where: { $0.deviceID == id }),
          taken.insert(old.contact.slot).inserted
        {
          assigned[index] = RawContact(
            slot: old.contact.slot, trackingID: old.contact.trackingID, axes: contact.axes)
        }
      }
    } else {
      let pairs = Self.match(
        from: previous.map { ($0.contact.x, $0.contact.y) },
        to: new.map { ($0.axes[InputCode.ABS_MT_POSITION_X] ?? 0, $0.axes[InputCode.ABS_MT_POSITION_Y] ?? 0) }
      )
      for (newIndex, oldIndex) in pairs {
        let old = previous[oldIndex].contact
        assigned[newIndex] = RawContact(slot: old.slot, trackingID: old.trackingID, axes: new[newIndex].axes)
      }
    }
    var used = Set(assigned.compactMap { $0?.slot })
    for index in new.indices where assigned[index] == nil {
      var slot = 0
      while used.contains(slot) { slot += 1 }
      used.insert(slot)
      assigned[index] = RawContact(slot: slot, trackingID: nextTrackingID, axes: new[index].axes)
      nextTrackingID = nextTrackingID == Int32.max ? 0 : nextTrackingID + 1
    }
    previous = new.indices.map { (assigned[$0]!, new[$0].trackingID) }.sorted {
      $0.contact.slot < $1.contact.slot
    }
    return previous.map(\.contact)
  }

  /// Pairs of (new index, old index) with the least sum of squared distances, as many pairs as
  /// the smaller side has contacts.
  static func match(from old: [(Int32, Int32)], to new: [(Int32, Int32)]) -> [(Int, Int)] {
    guard !old.isEmpty, !new.isEmpty else { return [] }
    func cost(_ newIndex: Int, _ oldIndex: Int) -> Double {
      let dx = Double(new[newIndex].0) - Double(old[oldIndex].0)
      let dy = Double(new[newIndex].1) - Double(old[oldIndex].1)
      return dx * dx + dy * dy
    }
    // The smaller side is matched entirely, into subsets of the larger one.
    let newIsSmaller = new.count <= old.count
    let small = newIsSmaller ? new.count : old.count
    let large = newIsSmaller ? old.count : new.count
    func pairCost(_ s: Int, _ l: Int) -> Double { newIsSmaller ? cost(s, l) : cost(l, s) }
    var pairs: [(Int, Int)] = []
    if large <= exactMatchLimit {
      // best[mask]: the least cost of matching the first popcount(mask) small ones into `mask`.
      let states = 1 << large
      var best = [Double](repeating: .infinity, count: states)
      var choice = [Int](repeating: -1, count: states)
      best[0] = 0
      for mask in 0..<states where best[mask] < .infinity {
        let s = mask.nonzeroBitCount
        guard s < small else { continue }
        for l in 0..<large where mask & (1 << l) == 0 {
          let next = mask | (1 << l)
          let total = best[mask] + pairCost(s, l)
          if total < best[next] {
            best[next] = total
            choice[next] = l
          }
        }
      }
      var end = -1
      for mask in 0..<states where mask.nonzeroBitCount == small {
        if end < 0 || best[mask] < best[end] { end = mask }
      }
      var mask = end
      var s = small - 1
      while mask != 0 {
        let l = choice[mask]
        pairs.append((s, l))
        mask &= ~(1 << l)
        s -= 1
      }
    } else {
      // Many contacts: nearest pairs first.
      var candidates: [(cost: Double, s: Int, l: Int)] = []
      for s in 0..<small { for l in 0..<large { candidates.append((pairCost(s, l), s, l)) } }
      candidates.sort { $0.cost < $1.cost }
      var usedSmall = Set<Int>()
      var usedLarge = Set<Int>()
      for candidate in candidates where !usedSmall.contains(candidate.s) && !usedLarge.contains(candidate.l) {
        usedSmall.insert(candidate.s)
        usedLarge.insert(candidate.l)
        pairs.append((candidate.s, candidate.l))
      }
    }
    return pairs.map { newIsSmaller ? ($0.0, $0.1) : ($0.1, $0.0) }
  }
}
