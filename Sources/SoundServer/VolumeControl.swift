import InputCodes

/// What the volume keys change: the sound server's volume. `SoundServerConnection` is the real
/// one (libpulse); the test kit's `FakeVolumeControl` is an in-process double with sinks, a
/// server that refuses, stops answering or is absent, so that what the daemon does around the
/// sound server is tested without one.
public protocol VolumeControl: AnyObject {
  /// Connects (a control already connected stays so).
  func start()
  /// Disconnects; presses waiting for the connection end with `.noServer`.
  func stop()
  /// Acts on a volume key on the sink `location` matches, else the default sink; `completion` runs
  /// once the server has answered (or at once when it cannot).
  func press(_ key: VolumeKey, location: InputDeviceLocation?, completion: @escaping (VolumeOutcome) -> Void)
}

extension SoundServerConnection: VolumeControl {}
