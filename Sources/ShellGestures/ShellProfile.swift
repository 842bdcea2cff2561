import EventTime
import ResponderCore

/// The desktop shell beside which the daemon reads the touchscreen, and what it takes of the
/// touches: the compositor reads the same panel, and a gesture it takes never reaches the
/// applications (it cancels their touches, or never delivers them). The daemon follows the same
/// rules, so that one physical gesture makes one action (`ShellGestureFilter`).
///
/// The figures come from each shell's sources (docs/desktop.md says where); those in pixels are
/// the shell's logical pixels, which the daemon's screen points stand for when `[touch] width` and
/// `height` are the display's size.
public enum ShellProfile: String, CaseIterable, Sendable, CustomStringConvertible {
  /// GNOME Shell 40 and later: every sequence that reaches three fingers (overview, workspaces);
  /// a one-finger drag from the bottom edge (the on-screen keyboard).
  case gnome
  /// GNOME Shell 3.36 and 3.38: every sequence that reaches four fingers.
  case gnome3 = "gnome-3"
  /// KDE Plasma (KWin 5.27, 6): a third finger landing soon after the one before and near another.
  case kde
  /// Phosh 0.35 and later: touches landing on its top bar or its 15 px home bar.
  case phosh
  /// Phosh 0.34 and earlier (Debian 12 has 0.24): touches landing on its top bar or its 40 px home
  /// button bar.
  case phosh034 = "phosh-0.34"
  /// Hyprland with `gestures:workspace_swipe_touch` on: a touch landing in a side edge's band.
  case hyprlandTouch = "hyprland-touch"
  /// A shell that takes nothing on a touchscreen (sway, a bare session).
  case none

  /// The shell's name, for messages.
  public var description: String {
    switch self {
    case .gnome: "GNOME Shell 40+"
    case .gnome3: "GNOME Shell 3.36–3.38"
    case .kde: "KDE Plasma (KWin)"
    case .phosh: "Phosh 0.35+"
    case .phosh034: "Phosh 0.34 and earlier"
    case .hyprlandTouch: "Hyprland (workspace_swipe_touch)"
    case .none: "no shell gestures"
    }
  }

  /// What the shell takes, in a few words.
  public var takes: String {
    switch self {
    case .gnome:
      "every touch sequence that reaches \(GNOME.swipeFingers) fingers, and a one-finger drag from within \(Int(GNOME.edgeThreshold)) px of the bottom edge"
    case .gnome3: "every touch sequence that reaches \(GNOME.swipeFingers3) fingers"
    case .kde:
      "a touch sequence whose third finger lands within \(Int(KWin.landingInterval * 1000)) ms of the one before and within \(Int(KWin.landingDistance)) mm of another"
    case .phosh, .phosh034:
      "the touches landing on its top bar (\(Int(Phosh.topBarHeight)) px) and its home bar (\(Int(phoshHomeBarHeight)) px)"
    case .hyprlandTouch:
      "the touches landing within \(Int(Hyprland.edgeBand)) px of a side edge, and those landing during the workspace swipe they begin"
    case .none: "nothing"
    }
  }

  /// The number of fingers from which the shell takes every sequence, whatever they do (GNOME);
  /// nil when no count alone decides (KWin also asks when and where the fingers land).
  public var takesSequencesOf: Int? {
    switch self {
    case .gnome: GNOME.swipeFingers
    case .gnome3: GNOME.swipeFingers3
    default: nil
    }
  }

  /// The number of fingers from which the shell may take a sequence (KWin: when the fingers land
  /// close together in time and space).
  public var mayTakeSequencesOf: Int? {
    switch self {
    case .kde: KWin.fingers
    default: takesSequencesOf
    }
  }

  /// The bands along the screen's edges where the shell takes a touch that starts there.
  public var edgeBands: [ShellEdgeBand] {
    switch self {
    case .gnome:
      [
        ShellEdgeBand(
          edge: .bottom, width: GNOME.edgeThreshold, takes: "a drag starting",
          purpose: "its on-screen keyboard"),
        ShellEdgeBand(
          edge: .top, width: GNOME.edgeThreshold, takes: "a drag starting",
          purpose: "over a fullscreen window, to leave fullscreen"),
      ]
    case .phosh, .phosh034:
      [
        ShellEdgeBand(
          edge: .top, width: Phosh.topBarHeight, takes: "every touch landing", purpose: "its top bar"),
        ShellEdgeBand(
          edge: .bottom, width: phoshHomeBarHeight, takes: "every touch landing", purpose: "its home bar"),
      ]
    case .hyprlandTouch:
      [
        ShellEdgeBand(
          edge: .left, width: Hyprland.edgeBand, takes: "every touch landing", purpose: "a workspace swipe"),
        ShellEdgeBand(
          edge: .right, width: Hyprland.edgeBand, takes: "every touch landing", purpose: "a workspace swipe"),
      ]
    case .gnome3, .kde, .none: []
    }
  }

  /// The profile of a desktop named in `XDG_CURRENT_DESKTOP` (a colon-separated list), if one.
  /// Hyprland is not among them: its touch swipe is off unless its config turns it on.
  public static func named(currentDesktop: String) -> ShellProfile? {
    for name in currentDesktop.split(separator: ":").map({ $0.lowercased() }) {
      switch name {
      case "gnome": return .gnome
      case "kde": return .kde
      case "phosh": return .phosh
      default: continue
      }
    }
    return nil
  }

  /// The profile of the phosh release `version` ("0.24.0", as phosh reports it in
  /// `org.gnome.Shell`'s `ShellVersion`: "43 (phosh 0.24.0)"); the newest when it cannot be read.
  public static func phosh(version: String?) -> ShellProfile {
    let numbers = (version ?? "").split(separator: ".").map { Int($0) }
    guard numbers.count >= 2, let major = numbers[0], let minor = numbers[1] else { return .phosh }
    let first = Phosh.homeBarRelease
    return (major, minor) < (first.major, first.minor) ? .phosh034 : .phosh
  }

  /// The height of phosh's bottom bar in this profile (0 for the other shells).
  public var phoshHomeBarHeight: Double {
    switch self {
    case .phosh: Phosh.homeBarHeight
    case .phosh034: Phosh.homeButtonHeight
    default: 0
    }
  }

  /// GNOME Shell's figures (js/ui/swipeTracker.js, js/ui/edgeDragAction.js, mutter's
  /// src/core/meta-gesture-tracker.c, Clutter's gesture action).
  public enum GNOME {
    /// Fingers of the touch swipe (overview, workspaces), GNOME 40+.
    public static let swipeFingers = 3
    /// Fingers of the touch swipe in GNOME 3.36 and 3.38.
    public static let swipeFingers3 = 4
    /// Pixels from the edge where an edge drag starts (`EDGE_THRESHOLD`; strictly within).
    public static let edgeThreshold: Double = 20
    /// Pixels a touch moves, along either axis, before a drag begins (Clutter's default
    /// `dnd-drag-threshold`).
    public static let dragThreshold: Double = 8
    /// Pixels along either axis after which mutter leaves a sequence to the application for good
    /// (`DISTANCE_THRESHOLD`).
    public static let rejectDistance: Double = 30
    /// Seconds after its touch-down when mutter leaves a sequence no shell gesture claimed to the
    /// application for good (`DEFAULT_AUTODENY_TIMEOUT`, 150 ms).
    public static let autodenyTimeout: Seconds = 0.150
  }

  /// KWin's figures (src/input.cpp, the global shortcut filter's touch handling).
  public enum KWin {
    /// The finger that makes a touch-screen swipe.
    public static let fingers = 3
    /// Seconds within which each finger lands after the one before.
    public static let landingInterval: Seconds = 0.250
    /// Millimetres (|dx| + |dy|) within which a new finger lands of one already down.
    public static let landingDistance: Double = 50
    /// The physical size KWin assumes for a display that reports none (millimetres).
    public static let fallbackSize = Size(width: 190, height: 100)
  }

  /// Phosh's figures, in logical pixels, from its sources (src/top-panel.h, src/home.h). Those of
  /// 0.24.0 (Debian 12) were also checked against the real phoc 0.24 and phosh 0.24, headless
  /// (the project's phosh tests); those of 0.35 and later were read from the sources only.
  public enum Phosh {
    /// The top bar: `PHOSH_TOP_PANEL_HEIGHT` 32 in 0.24.0 (`PHOSH_TOP_BAR_HEIGHT` later, still
    /// 32). Checked live on 0.24.0: a touch landing above it is phosh's, one landing below it the
    /// app's.
    public static let topBarHeight: Double = 32
    /// The home bar from 0.35.0 on: `PHOSH_HOME_BAR_HEIGHT` 15 (read from the source of 0.35.0
    /// and later, not checked live).
    public static let homeBarHeight: Double = 15
    /// The home button bar up to 0.34: `PHOSH_HOME_BUTTON_HEIGHT` 40 in 0.24.0, also the bottom
    /// of the area phoc gives a maximized window. Checked live on 0.24.0.
    public static let homeButtonHeight: Double = 40
    /// The first release with the 15 px home bar (0.35.0).
    public static let homeBarRelease = (major: 0, minor: 35)
  }

  /// Hyprland's figures (src/managers/input/Touch.cpp with the default config).
  public enum Hyprland {
    /// `general:gaps_out` (20) plus `general:border_size` (1).
    public static let edgeBand: Double = 21
  }
}

/// A band along a screen edge where a shell takes the touches that start there.
public struct ShellEdgeBand: Equatable, Sendable, CustomStringConvertible {
  /// A screen edge, as the user sees the screen.
  public enum Edge: String, Sendable, CaseIterable {
    case left, right, top, bottom
  }
  public var edge: Edge
  /// Its width in the shell's pixels.
  public var width: Double
  /// What the shell takes there ("a drag starting"), for messages.
  public var takes: String
  /// What for ("its on-screen keyboard"), for messages.
  public var purpose: String

  /// "a drag starting within 20 px of the bottom edge (its on-screen keyboard)".
  public var description: String {
    "\(takes) within \(Int(width)) px of the \(edge.rawValue) edge (\(purpose))"
  }
}
