import EventLoop
import IIOInput
import Logging
import Motion
import ResponderCore
import TouchScenes

/// Records the real accelerometer to a trace (`t,x,y,z` lines, the format `motion analyze`
/// reads), so that users can tune the shake settings on their own device.
public final class MotionRecorder {
  /// Why recording cannot start.
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  public let input: IIOInput
  private let loop: EventLoop
  private let write: (String) -> Void
  /// Samples written so far.
  public private(set) var sampleCount = 0
  /// Set when the sensor went away during the recording.
  public private(set) var sensorLost = false

  /// The accelerometer `settings` choose (the daemon's `[motion]` section gives them).
  /// - Parameter write: receives the header line, then one line per sample (each ending in "\n").
  public init(loop: EventLoop, settings: IIOInput.Settings, logger: Logger, write: @escaping (String) -> Void)
  {
    self.loop = loop
    self.write = write
    input = IIOInput(loop: loop, settings: settings, logger: logger)
    input.addSampleObserver { [weak self] sample in
      guard let self else { return }
      self.sampleCount += 1
      self.write(MotionTrace.line(for: sample) + "\n")
    }
    input.addSensorObserver { [weak self] change in
      guard case .closed = change, let self, self.input.isWanted else { return }
      self.sensorLost = true
      self.loop.stop()
    }
  }

  /// Opens the sensor and writes the header; throws when there is no accelerometer.
  public func start() throws {
    input.setWanted(true)
    guard let sensor = input.sensor else {
      input.setWanted(false)
      throw Failure(description: "no accelerometer found (is an IIO sensor present and readable?)")
    }
    write("# \(sensor)\n\(MotionTrace.header)\n")
  }

  /// Records for `seconds` (until SIGINT or SIGTERM when nil), then closes the sensor.
  public func run(seconds: Double?) throws {
    try start()
    try loop.onSignals([SIGINT, SIGTERM]) { [loop] _ in loop.stop() }
    if let seconds { loop.scheduler.schedule(after: seconds) { [loop] in loop.stop() } }
    loop.run()
    input.setWanted(false)
  }
}

#if canImport(Glibc)
  import Glibc
#endif
