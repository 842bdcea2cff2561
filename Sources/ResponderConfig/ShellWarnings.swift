import ShellGestures

/// Something in a config file that is accepted but will not do what it says: `FILE:LINE: warning:
/// message`, as compilers write it. The service still starts.
public struct ConfigWarning: Equatable, CustomStringConvertible, Sendable {
  public var file: String
  public var line: Int
  public var message: String

  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  public var description: String {
    line > 0 ? "\(file):\(line): warning: \(message)" : "\(file): warning: \(message)"
  }
}

extension ResponderdConfig {
  /// The shells `--check-config` checks the touch rules against: the configured one, else (with
  /// `shell = "auto"`) the one `XDG_CURRENT_DESKTOP` names, else every shell "auto" can find.
  public func shellProfilesToCheck(currentDesktop: String?) -> [ShellProfile] {
    switch touch.shell {
    case .profile(let profile): return [profile]
    case .auto:
      // The desktop's name does not say which phosh release runs: both of its profiles.
      if let named = currentDesktop.flatMap(ShellProfile.named(currentDesktop:)) {
        return named == .phosh ? [.phosh034, .phosh] : [named]
      }
      return [.gnome, .kde, .phosh034, .phosh]
    }
  }

  /// The touch rules that `profiles` take from the daemon, each with its file, line and reason.
  public func shellWarnings(for profiles: [ShellProfile]) -> [ConfigWarning] {
    guard touch.enabled, !touch.gestures.isEmpty else { return [] }
    var warnings: [ConfigWarning] = []
    for binding in touch.gestures {
      for profile in profiles {
        warnings += Self.warnings(binding, profile: profile, edgeWidth: touch.edgeWidth, file: file)
      }
    }
    if touch.width == 0 || touch.height == 0, let profile = profiles.first(where: { !$0.edgeBands.isEmpty }) {
      warnings.append(
        ConfigWarning(
          file: file, line: touchLine,
          message:
            "[touch] width and height are not set: \(profile)'s edge bands are in pixels and are measured in the panel's own units instead; set them to the display's size in pixels"
        ))
    }
    return warnings
  }

  private static func warnings(
    _ binding: TouchGestureBinding, profile: ShellProfile, edgeWidth: Double, file: String
  ) -> [ConfigWarning] {
    var warnings: [ConfigWarning] = []
    let fingersLine = binding.lines.fingers > 0 ? binding.lines.fingers : binding.lines.table
    let what =
      "gesture '\(binding.name)' (\(binding.kind.rawValue), \(binding.fingers) finger\(binding.fingers == 1 ? "" : "s"))"
    if let count = profile.takesSequencesOf, binding.fingers >= count {
      warnings.append(
        ConfigWarning(
          file: file, line: fingersLine,
          message:
            "\(what): \(profile) takes every touch sequence that reaches \(count) fingers (its overview and workspace swipe), so this rule never acts there"
        ))
    } else if profile == .kde, binding.fingers >= ShellProfile.KWin.fingers {
      warnings.append(
        ConfigWarning(
          file: file, line: fingersLine,
          message:
            "\(what): \(profile) takes a touch sequence whose third finger lands within 250 ms of the one before and within 50 mm of another (its touch-screen swipe), so this rule acts there only when the fingers land further apart"
        ))
    }
    if binding.kind == .edgeSwipe, let edge = binding.edge {
      for band in profile.edgeBands where band.edge.rawValue == edge.rawValue {
        let line = binding.lines.edge > 0 ? binding.lines.edge : binding.lines.table
        let reach =
          edgeWidth <= band.width
          ? "so this rule never acts there"
          : "so this rule acts there only when it starts \(Int(band.width)) to \(Int(edgeWidth)) px from the edge (edge-width)"
        warnings.append(
          ConfigWarning(
            file: file, line: line,
            message:
              "gesture '\(binding.name)' (edge-swipe from the \(edge.rawValue) edge): \(profile) takes \(band), \(reach)"
          ))
      }
    }
    return warnings
  }
}
