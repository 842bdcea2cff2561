import EventTime
import ResponderCore
import TouchDispatch

/// The screen as the shell measures it.
public struct ShellGeometry: Equatable, Sendable {
  /// The screen in points, as the user sees it (the shell's logical pixels when `[touch] width`
  /// and `height` are the display's size).
  public var screen: Size
  /// The screen's physical size in millimetres, as the user sees it (from the panel's resolution);
  /// nil when the panel does not say.
  public var physicalSize: Size?

  public init(screen: Size, physicalSize: Size? = nil) {
    self.screen = screen
    self.physicalSize = physicalSize
  }

  /// Millimetres per point along each axis; KWin's own guess (190 × 100 mm) when the size is not
  /// known, as KWin does for a display that reports none.
  public var millimetresPerPoint: (x: Double, y: Double) {
    let size = physicalSize ?? ShellProfile.KWin.fallbackSize
    return (size.width / max(screen.width, 1), size.height / max(screen.height, 1))
  }
}

/// What the shell took, and why.
public enum ShellClaim: Equatable, Sendable, CustomStringConvertible {
  /// The sequence reached this many fingers (GNOME's overview and workspace swipe).
  case fingers(Int)
  /// A one-finger drag from the bottom edge (GNOME's on-screen keyboard).
  case edgeDrag
  /// A third finger landed soon after the one before and near another (KWin's swipe).
  case thirdFinger
  /// A touch landed on one of the shell's bars (Phosh): that touch alone is the shell's.
  case bar(ShellEdgeBand.Edge)
  /// A touch landed in a side edge's band, or during the workspace swipe it began (Hyprland):
  /// that touch alone is the shell's.
  case workspaceSwipe

  /// Whether the shell takes the whole sequence (the application's touches are cancelled), not
  /// just the touch that landed.
  public var takesSequence: Bool {
    switch self {
    case .fingers, .edgeDrag, .thirdFinger: true
    case .bar, .workspaceSwipe: false
    }
  }

  public var description: String {
    switch self {
    case .fingers(let count): "the sequence reached \(count) fingers"
    case .edgeDrag: "a drag from the bottom edge"
    case .thirdFinger: "a third finger landed close in time and place"
    case .bar(let edge): "a touch on its \(edge == .top ? "top bar" : "home bar")"
    case .workspaceSwipe: "a touch at a side edge (workspace swipe)"
    }
  }
}

/// Follows what the shell takes of the touches the daemon reads (its `ShellProfile`), before the
/// daemon's gesture recognizers see them:
///
/// - a touch the shell takes where it lands (Phosh's bars, Hyprland's edges) is never passed on;
/// - a sequence the shell takes later (GNOME's three fingers and its bottom-edge drag, KWin's third
///   finger) cancels every touch under way, and nothing more is passed on until every finger has
///   lifted.
///
/// Pure: feed it frames of contacts (`TouchscreenInput.frameFilter`). A new profile takes effect
/// once no finger is on the surface.
public final class ShellGestureFilter: ContactFrameFilter {
  private struct Finger {
    var start: Point
    var down: Seconds
    /// GNOME: the first finger started in the bottom band and mutter has not yet left it to the
    /// application (it is still "pending").
    var edgeCandidate = false
  }

  /// The shell's rules now.
  public private(set) var profile: ShellProfile
  private var nextProfile: ShellProfile?
  /// The screen as the shell measures it (changed when the screen turns).
  public var geometry: ShellGeometry
  /// Called with each claim of the shell, when it is made.
  public var claimObserver: ((ShellClaim, Seconds) -> Void)?
  /// The claim that cancelled the sequence under way, if one did.
  public private(set) var sequenceClaim: ShellClaim?

  /// The fingers on the surface, passed on or not, in the order they came down.
  private var fingers: [(key: ContactKey, finger: Finger)] = []
  /// Fingers the shell took where they landed.
  private var held: Set<ContactKey> = []
  /// KWin: the time of the last finger down, and whether a finger came too late or too far.
  private var lastDown: Seconds = 0
  private var kwinRefused = false
  /// Hyprland: the finger of the workspace swipe under way.
  private var swipeFinger: ContactKey?

  public init(profile: ShellProfile, geometry: ShellGeometry) {
    self.profile = profile
    self.geometry = geometry
  }

  /// Switches to `profile`: at once when no finger is on the surface, else when the last lifts.
  public func setProfile(_ profile: ShellProfile) {
    if fingers.isEmpty {
      self.profile = profile
      nextProfile = nil
    } else {
      nextProfile = profile
    }
  }

  public func reset() {
    fingers.removeAll()
    held.removeAll()
    sequenceClaim = nil
    kwinRefused = false
    swipeFinger = nil
    if let next = nextProfile {
      profile = next
      nextProfile = nil
    }
  }

  public func filter(_ contacts: [ContactSample], at time: Seconds) -> [ContactSample]? {
    let keys = contacts.map(\.key)
    // Lifted fingers.
    fingers.removeAll { entry in
      guard !keys.contains(entry.key) else { return false }
      held.remove(entry.key)
      if swipeFinger == entry.key { swipeFinger = nil }
      return true
    }
    var claim: ShellClaim?
    for (index, contact) in contacts.enumerated() {
      let key = keys[index]
      if let position = fingers.firstIndex(where: { $0.key == key }) {
        if sequenceClaim == nil, claim == nil {
          claim = moved(&fingers[position].finger, to: contact.location, at: time)
        }
      } else {
        let landed = land(key, at: contact.location, time: time)
        if claim == nil { claim = landed }
      }
    }
    if let claim { claimObserver?(claim, time) }
    defer { if contacts.isEmpty { reset() } }
    if sequenceClaim != nil {
      return []
    }
    if let claim, claim.takesSequence {
      sequenceClaim = claim
      return nil
    }
    return held.isEmpty
      ? contacts : contacts.filter { !held.contains($0.key) }
  }

  /// A finger lands: the claim it makes, if any.
  private func land(_ key: ContactKey, at point: Point, time: Seconds) -> ShellClaim? {
    let others = fingers
    var finger = Finger(start: point, down: time)
    defer { fingers.append((key, finger)) }
    guard sequenceClaim == nil else { return nil }
    switch profile {
    case .none:
      return nil
    case .gnome, .gnome3:
      if let count = profile.takesSequencesOf, others.count + 1 >= count {
        return .fingers(others.count + 1)
      }
      if profile == .gnome, others.isEmpty,
        point.y > geometry.screen.height - ShellProfile.GNOME.edgeThreshold
      {
        finger.edgeCandidate = true
      }
      return nil
    case .kde:
      guard !kwinRefused else { return nil }
      if !others.isEmpty {
        if time - lastDown > ShellProfile.KWin.landingInterval {
          kwinRefused = true
          return nil
        }
        let (mmX, mmY) = geometry.millimetresPerPoint
        let near = others.contains { other in
          abs(point.x - other.finger.start.x) * mmX + abs(point.y - other.finger.start.y) * mmY
            < ShellProfile.KWin.landingDistance
        }
        guard near else {
          kwinRefused = true
          return nil
        }
      }
      lastDown = time
      return others.count + 1 >= ShellProfile.KWin.fingers ? .thirdFinger : nil
    case .phosh, .phosh034:
      if point.y < ShellProfile.Phosh.topBarHeight {
        held.insert(key)
        return .bar(.top)
      }
      if point.y >= geometry.screen.height - profile.phoshHomeBarHeight {
        held.insert(key)
        return .bar(.bottom)
      }
      return nil
    case .hyprlandTouch:
      let band = ShellProfile.Hyprland.edgeBand
      if swipeFinger != nil || point.x < band || point.x > geometry.screen.width - band {
        held.insert(key)
        if swipeFinger == nil { swipeFinger = key }
        return .workspaceSwipe
      }
      return nil
    }
  }

  /// A finger moves: GNOME's bottom-edge drag begins once the finger has moved the drag threshold,
  /// unless mutter already left the sequence to the application (150 ms after the touch-down, or
  /// 30 px away from where it landed).
  private func moved(_ finger: inout Finger, to point: Point, at time: Seconds) -> ShellClaim? {
    guard finger.edgeCandidate else { return nil }
    let dx = abs(point.x - finger.start.x)
    let dy = abs(point.y - finger.start.y)
    let gnome = ShellProfile.GNOME.self
    if time - finger.down >= gnome.autodenyTimeout || dx > gnome.rejectDistance || dy > gnome.rejectDistance {
      finger.edgeCandidate = false
      return nil
    }
    if dx >= gnome.dragThreshold || dy >= gnome.dragThreshold {
      finger.edgeCandidate = false
      return .edgeDrag
    }
    return nil
  }
}
