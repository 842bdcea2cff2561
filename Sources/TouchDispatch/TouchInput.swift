import EventTime
import ResponderCore

/// One finger on the surface in one input frame, in window coordinates.
public struct ContactSample: Sendable, Equatable {
  /// The input slot (evdev ABS_MT_SLOT); becomes the touch's `identifier`.
  public var slot: Int
  /// Tells successive contacts of one slot apart (evdev ABS_MT_TRACKING_ID).
  public var trackingID: Int
  /// Where the finger is, in window coordinates (points).
  public var location: Point
  /// The radius of the contact in points, when the device reports it.
  public var majorRadius: Double?
  /// The force, 0…`maximumPossibleForce`, when the device reports pressure.
  public var force: Double?
  public var maximumPossibleForce: Double?

  public init(
    slot: Int, trackingID: Int? = nil, location: Point, majorRadius: Double? = nil, force: Double? = nil,
    maximumPossibleForce: Double? = nil
  ) {
    self.slot = slot
    self.trackingID = trackingID ?? slot
    self.location = location
    self.majorRadius = majorRadius
    self.force = force
    self.maximumPossibleForce = maximumPossibleForce
  }

  /// Which finger this is: the same for every sample of one contact, new when a slot is reused.
  public var key: ContactKey { ContactKey(slot: slot, trackingID: trackingID) }
}

/// Tells contacts apart across frames: a slot with its tracking id (a finger put down again in the
/// same slot gets a new tracking id).
public struct ContactKey: Hashable, Sendable {
  public var slot: Int
  public var trackingID: Int
}

/// Turns frames of contacts into touches and touch events for a window, as the system does for
/// UIKit: one Touch object per finger for its whole sequence, phases began, moved, stationary,
/// ended and cancelled, tap counts, and one Event per multitouch sequence. Each frame is sent
/// through the window's application (`sendEvent`), or to the window when it has none.
public final class TouchInput {
  /// A finger on the surface: its touch, where it came down, whether it can still be a tap.
  private struct Finger {
    var key: ContactKey
    var touch: Touch
    var start: Point
    var tapCandidate: Bool
  }

  private struct RecentTap {
    var location: Point
    var end: Seconds
    var count: Int
  }

  /// The window the touches belong to.
  public let window: Window
  /// A touch down within this time of a tap's end, near it, counts as the next tap.
  public var multiTapInterval: Seconds {
    get { multiTapIntervalStorage }
    set { multiTapIntervalStorage = newValue }
  }
  private var multiTapIntervalStorage: Seconds = 0.35
  /// How close, in points, the next tap must land (and how little a tap may move).
  public var multiTapRadius: Double {
    get { multiTapRadiusStorage }
    set { multiTapRadiusStorage = newValue }
  }
  private var multiTapRadiusStorage: Double = 45

  /// The fingers on the surface, in the order they came down (a handful: searched in order).
  private var fingers: [Finger] = []
  private var recentTaps: [RecentTap] = []
  private var event: Event?
  /// The source recorded on events ("evdev:/dev/input/event3", "replay").
  public var source: String {
    get { sourceStorage }
    set { sourceStorage = newValue }
  }
  private var sourceStorage: String

  public init(window: Window, source: String = "touch") {
    self.window = window
    self.sourceStorage = source
  }

  /// The touches on the surface, in the order they came down.
  public var activeTouches: [Touch] { fingers.map(\.touch) }

  /// Processes one frame: `contacts` are every finger on the surface after it. Fingers not
  /// listed any more have lifted. Sends one touch event unless nothing changed.
  public func process(_ contacts: [ContactSample], at time: Seconds) {
    var frame: [Touch] = []
    frame.reserveCapacity(max(contacts.count, fingers.count))
    var changed = false
    var lifted = false
    for finger in fingers
    where !contacts.contains(where: { $0.key == finger.key }) {
      finger.touch.move(to: finger.touch.locationInWindow, at: time, phase: .ended)
      frame.append(finger.touch)
      lifted = true
      changed = true
    }
    for contact in contacts {
      let key = contact.key
      if let index = fingers.firstIndex(where: { $0.key == key }) {
        let touch = fingers[index].touch
        let moved =
          touch.locationInWindow != contact.location
          || (contact.force != nil && contact.force != touch.force)
        if moved {
          touch.move(to: contact.location, at: time, phase: .moved)
          changed = true
          if fingers[index].tapCandidate, contact.location.distance(to: fingers[index].start) > multiTapRadius
          {
            var list = fingers.takeOut()
            list[index].tapCandidate = false
            fingers.putBack(&list)
          }
        } else {
          touch.move(to: touch.locationInWindow, at: touch.timestamp, phase: .stationary)
        }
        apply(contact, to: touch)
        frame.append(touch)
      } else {
        let touch = Touch(
          identifier: contact.slot, phase: .began, location: contact.location, timestamp: time,
          window: window, tapCount: tapCount(at: contact.location, time: time))
        apply(contact, to: touch)
        var list = fingers.takeOut()
        list.append(Finger(key: key, touch: touch, start: contact.location, tapCandidate: true))
        fingers.putBack(&list)
        frame.append(touch)
        changed = true
      }
    }
    guard changed else { return }
    send(frame, at: time)
    if lifted { forgetLifted(at: time, tap: true) }
  }

  /// Cancels every touch on the surface (the input was interrupted: events were dropped, the
  /// device went away).
  public func cancelAll(at time: Seconds) {
    guard !fingers.isEmpty else { return }
    var frame: [Touch] = []
    for finger in fingers {
      finger.touch.move(to: finger.touch.locationInWindow, at: time, phase: .cancelled)
      frame.append(finger.touch)
    }
    send(frame, at: time)
    forgetLifted(at: time, tap: false)
  }

  private func apply(_ contact: ContactSample, to touch: Touch) {
    if let radius = contact.majorRadius { touch.majorRadius = radius }
    if let force = contact.force { touch.force = force }
    if let maximum = contact.maximumPossibleForce { touch.maximumPossibleForce = maximum }
  }

  private func send(_ touches: [Touch], at time: Seconds) {
    let event = self.event ?? Event(type: .touches, timestamp: time, source: source)
    self.event = event
    event.setTouches(Set(touches), timestamp: time)
    if let application = window.application {
      application.sendEvent(event)
    } else {
      window.sendEvent(event)
    }
  }

  /// Forgets the fingers whose touches ended or were cancelled; lifted taps are remembered for
  /// the next touch's tap count.
  private func forgetLifted(at time: Seconds, tap: Bool) {
    var down = fingers.takeOut()
    var taps = recentTaps.takeOut()
    down.removeAll { finger in
      guard finger.touch.phase.isFinal else { return false }
      if tap, finger.tapCandidate {
        taps.append(RecentTap(location: finger.start, end: time, count: finger.touch.tapCount))
      }
      return true
    }
    fingers.putBack(&down)
    recentTaps.putBack(&taps)
    if fingers.isEmpty { event = nil }
  }

  private func tapCount(at location: Point, time: Seconds) -> Int {
    var taps = recentTaps.takeOut()
    defer { recentTaps.putBack(&taps) }
    taps.removeAll { time - $0.end > multiTapInterval }
    guard let index = taps.firstIndex(where: { $0.location.distance(to: location) <= multiTapRadius })
    else { return 1 }
    return taps.remove(at: index).count + 1
  }

}
