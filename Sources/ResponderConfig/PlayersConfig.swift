import PlayerSelection

extension PlayerSettings {
  /// `[players]`: the player selection policy and the `mpris` handler's settings.
  ///
  /// ```toml
  /// [players]
  /// policy = "playing-first"      # or "most-recent"
  /// priority = ["spotify", "mpv*"]
  /// ignore = ["chromium.*"]
  /// seek-step = 5.0               # seconds per Seek step while seeking is held
  /// seek-interval = 0.25          # seconds between steps
  /// call-deadline = 0.3           # seconds a player may take before the event moves on
  /// proxy = true                  # own org.mpris.MediaPlayer2.responderd
  /// ```
  init(_ section: ConfigSection) throws {
    self.init()
    let policyName = try section.string(
      "policy", default: policy.rawValue, allowed: SelectionPolicy.allCases.map(\.rawValue))
    policy = SelectionPolicy(rawValue: policyName)!
    priority = try globs(section, "priority", default: priority)
    ignore = try globs(section, "ignore", default: ignore)
    seekStep = try section.double("seek-step", default: seekStep, range: 0.01...600)
    seekInterval = try section.double("seek-interval", default: seekInterval, range: 0.01...10)
    callDeadline = try section.double("call-deadline", default: callDeadline, range: 0.001...30)
    proxy = try section.bool("proxy", default: proxy)
    try section.finish()
  }
}

/// A list of name globs: non-empty strings.
private func globs(_ section: ConfigSection, _ key: String, default fallback: [String]) throws -> [String] {
  let values = try section.strings(key, default: fallback)
  for (index, value) in values.enumerated() where value.isEmpty {
    throw section.error(key, "'\(section.qualified(key))[\(index)]' is empty: write a player name or glob")
  }
  return values
}
