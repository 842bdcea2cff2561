import InputCodes
import SoundServer

/// A sound server in the test process (`VolumeControl`): sinks with a volume and a mute, a default
/// sink, and a server that answers, refuses, stops answering or is not there, as the test says.
/// Up and down move the volume by `step` percent (up unmutes; never above 100 nor below 0), mute
/// toggles, as `SoundServerConnection` does against a real server.
public final class FakeVolumeControl: VolumeControl {
  /// How the server answers the next presses.
  public enum Answer: Equatable, Sendable {
    /// Applies the change and says so.
    case applies
    /// Refuses the change, for this reason (the sink keeps its level).
    case refuses(String)
    /// Does not answer until `answerHeld()`; the presses meanwhile are held, in order.
    case holds
    /// Drops the press at once, for this reason (a connection whose server stopped answering).
    case drops(String)
    /// There is no sound server.
    case isAbsent
  }

  /// The sinks' levels by name.
  public private(set) var levels: [String: VolumeOutcome.Level]
  /// The sink a press with no matching location acts on.
  public var defaultSink: String
  /// The sink each device location matches, by the location's USB device path.
  public var sinkOfUSBDevice: [String: String] = [:]
  /// The up and down step, in percent.
  public var step: Int
  /// How the next presses are answered.
  public var answer = Answer.applies
  /// Every key pressed, in order.
  public private(set) var pressed: [VolumeKey] = []
  /// Whether the control is started (between `start` and `stop`).
  public private(set) var isStarted = false
  /// How many times it was started.
  public private(set) var starts = 0
  private var held: [(key: VolumeKey, sink: String, completion: (VolumeOutcome) -> Void)] = []

  /// A server with `sinks` (name and level), the first the default one.
  public init(sinks: [(String, VolumeOutcome.Level)], step: Int = 5) {
    levels = Dictionary(sinks, uniquingKeysWith: { first, _ in first })
    defaultSink = sinks.first?.0 ?? ""
    self.step = step
  }

  public func start() {
    guard !isStarted else { return }
    isStarted = true
    starts += 1
  }

  public func stop() {
    isStarted = false
    let waiting = held
    held.removeAll()
    for press in waiting { press.completion(.noServer) }
  }

  /// How many presses wait for an answer (`answer` is `.holds`).
  public var heldCount: Int { held.count }

  public func press(
    _ key: VolumeKey, location: InputDeviceLocation?, completion: @escaping (VolumeOutcome) -> Void
  ) {
    pressed.append(key)
    let matched = location?.usbDevicePath.flatMap { sinkOfUSBDevice[$0] }
    let sink = matched ?? defaultSink
    switch answer {
    case .isAbsent: completion(.noServer)
    case .drops(let reason): completion(.dropped(reason: reason))
    case .refuses(let reason): completion(.failed(sink: sink, reason: reason))
    case .holds: held.append((key, sink, completion))
    case .applies:
      completion(apply(key, to: sink, matchedBy: matched.map { _ in "same USB device" }))
    }
  }

  /// Answers every held press, in order, applying each.
  public func answerHeld() {
    let waiting = held
    held.removeAll()
    for press in waiting { press.completion(apply(press.key, to: press.sink, matchedBy: nil)) }
  }

  private func apply(_ key: VolumeKey, to sink: String, matchedBy: String?) -> VolumeOutcome {
    guard let before = levels[sink] else { return .noSink }
    var after = before
    switch key {
    case .mute: after.isMuted.toggle()
    case .up:
      after.percent = max(before.percent, min(before.percent + step, 100))
      after.isMuted = false
    case .down: after.percent = max(before.percent - step, 0)
    }
    levels[sink] = after
    return .changed(sink: sink, matchedBy: matchedBy, before: before, after: after)
  }
}
