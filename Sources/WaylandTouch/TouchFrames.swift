import EventTime
import ResponderCore
import TouchDispatch

/// wl_touch's events for one surface, gathered into frames for `TouchInput`: each `wl_touch.frame`
/// becomes one `process(_:at:)` with every finger on the surface after it, each `wl_touch.cancel` one
/// `cancelAll(at:)`. Pure logic (no Wayland calls): `WaylandDisplay` feeds it what the compositor
/// sends.
///
/// Coordinates are the surface's (wl_touch's surface-local coordinates are logical points, whatever
/// the buffer scale or fractional scale: they are the window's points as they come). A touch's
/// `identifier` is the lowest slot free when it came down (0, 1, …), as a touchscreen's would be;
/// the compositor's ids (any int32) only tell fingers apart.
public struct TouchFrames {
  private struct Contact {
    var id: Int32
    var slot: Int
    var trackingID: Int
    var location: Point
    var majorRadius: Double?
    /// Came down, or moved, in the frame being gathered: lifting in the same frame, it is first
    /// delivered there (a down and an up in one frame still make a touch; a finger lifts where
    /// its last motion took it).
    var new: Bool
    var moved = false
    var lifted: Bool
  }

  private var contacts: [Contact] = []
  private var nextTrackingID = 0
  private var frameTime: UInt32?
  /// Puts wl_touch's millisecond times on the event loop's clock.
  public var clock: TouchClock

  public init(clock: TouchClock) {
    self.clock = clock
  }

  /// The fingers down (their compositor ids), lifted ones of the frame being gathered included.
  public var downIDs: [Int32] { contacts.filter { !$0.lifted }.map(\.id) }

  /// wl_touch.down at `x`, `y` (surface coordinates).
  public mutating func down(id: Int32, x: Double, y: Double, time: UInt32) {
    frameTime = time
    contacts.removeAll { $0.id == id }  // a compositor never repeats a live id; if it did, the new one wins
    var slot = 0
    while contacts.contains(where: { $0.slot == slot }) { slot += 1 }
    contacts.append(
      Contact(
        id: id, slot: slot, trackingID: nextTrackingID, location: Point(x: x, y: y), new: true, lifted: false)
    )
    nextTrackingID += 1
  }

  /// wl_touch.motion.
  public mutating func motion(id: Int32, x: Double, y: Double, time: UInt32) {
    frameTime = time
    guard let index = contacts.firstIndex(where: { $0.id == id && !$0.lifted }) else { return }
    contacts[index].location = Point(x: x, y: y)
    contacts[index].moved = true
  }

  /// wl_touch.up.
  public mutating func up(id: Int32, time: UInt32) {
    frameTime = time
    guard let index = contacts.firstIndex(where: { $0.id == id && !$0.lifted }) else { return }
    contacts[index].lifted = true
  }

  /// wl_touch.shape: the contact's ellipse; its major axis (a diameter) becomes `majorRadius`.
  public mutating func shape(id: Int32, major: Double, minor: Double) {
    guard let index = contacts.firstIndex(where: { $0.id == id && !$0.lifted }) else { return }
    contacts[index].majorRadius = major / 2
  }

  /// wl_touch.frame: the frames to process, in order, each the fingers on the surface and the time
  /// on the loop's clock (`now` is when the frame was read). Usually one; two when a finger came
  /// down or moved and lifted within the frame (a tap shorter than a frame, or a compositor that
  /// sends the last motion and the up together: it is delivered there, then lifted).
  public mutating func frame(now: Seconds) -> [(contacts: [ContactSample], time: Seconds)] {
    let time = frameTime.map { clock.time(ofMilliseconds: $0, now: now) } ?? clock.lastTime(now: now)
    frameTime = nil
    var frames: [(contacts: [ContactSample], time: Seconds)] = []
    if contacts.contains(where: { ($0.new || $0.moved) && $0.lifted }) {
      frames.append((contacts.map(sample), time))
    }
    contacts.removeAll(where: \.lifted)
    for index in contacts.indices {
      contacts[index].new = false
      contacts[index].moved = false
    }
    frames.append((contacts.map(sample), time))
    return frames
  }

  /// wl_touch.cancel: the compositor took every touch of the sequence. Forgets them all; the
  /// caller cancels them in TouchDispatch at `now` (the event has no time of its own).
  public mutating func cancel() {
    contacts.removeAll()
    frameTime = nil
  }

  private func sample(_ contact: Contact) -> ContactSample {
    ContactSample(
      slot: contact.slot, trackingID: contact.trackingID, location: contact.location,
      majorRadius: contact.majorRadius)
  }
}
