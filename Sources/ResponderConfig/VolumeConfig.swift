/// `[volume]`: the volume keys of owned devices (a headset whose keys the desktop no longer sees),
/// sent to the sound server (PulseAudio, or PipeWire's pipewire-pulse).
///
/// ```toml
/// [volume]
/// enabled = true   # false: volume keys of owned devices do nothing (the sound server is not contacted)
/// step = 5         # percent of full volume per press of volume up or down (1–100)
/// ```
public struct VolumeSettings: Equatable {
  /// Whether volume keys act on the sound server.
  public var enabled = true
  /// Percent of full volume per press.
  public var step = 5.0

  public init() {}

  init(_ section: ConfigSection) throws {
    enabled = try section.bool("enabled", default: enabled)
    step = try section.double("step", default: step, range: 1...100)
    try section.finish()
  }
}
