import DeviceTestSupport
import EvdevInput
import EventLoop
import EventTime
import Logging
import RemoteControl
import ResponderCore
import ResponderdKit
import ResponderdTestKit

#if canImport(Glibc)
  import Glibc
#endif

/// What the tests log into (the test kit's, with each message's metadata).
typealias LogStore = RecordingLogHandler.Store

/// A media player responder: first responder, it records every remote-control event it gets.
final class PlayerResponder: Responder {
  private(set) var received: [String] = []
  weak var app: Application?
  override var next: Responder? { app }
  override var canBecomeFirstResponder: Bool { true }
  override var responderName: String { "player" }
  override func remoteControlReceived(with event: Event?) {
    guard let event else { return }
    received.append("\(event.subtype.name)@\(format(event.timestamp))")
  }
}

func format(_ time: Seconds) -> String {
  let micros = (time * 1_000_000).rounded()
  return "\(micros / 1_000_000)"
}

/// The key pipeline as the daemon runs it, on an event loop, with virtual time for the timers:
/// emulated device → libevdev → MediaKeyInput → Application → first responder.
final class KeyPipeline {
  let loop: EventLoop
  let scheduler = VirtualScheduler()
  let app: Application
  let player = PlayerResponder()
  let logs = LogStore()
  private(set) var records: [DispatchRecord] = []
  private(set) var changes: [MediaKeyInput.DeviceChange] = []
  /// Every key event the input read (only mapped keys can be here).
  private(set) var keysRead: [MediaKeyInput.ReadEvent] = []
  /// How many SYN_DROPPED were resynced.
  private(set) var resyncs = 0
  private(set) var input: MediaKeyInput!

  /// With `virtualTime`, the keys are interpreted on `scheduler` with the timestamps the test
  /// writes; without, on the loop's clock (CLOCK_MONOTONIC).
  init(settings: KeySettings = .standard, virtualTime: Bool = true) throws {
    loop = try EventLoop()
    app = Application(scheduler: scheduler)
    app.beginReceivingRemoteControlEvents()
    player.app = app
    player.becomeFirstResponder()
    let store = logs
    var logger = Logger(label: "responderd.test") { _ in RecordingLogHandler(store: store) }
    logger.logLevel = .trace
    input = MediaKeyInput(
      loop: loop, scheduler: virtualTime ? scheduler : nil, settings: settings, logger: logger
    ) { [app] emission in
      app.post(.remoteControl(emission.subtype, timestamp: emission.timestamp, source: emission.source))
    }
    input.addDeviceObserver { [weak self] change in self?.changes.append(change) }
    input.addReadObserver { [weak self] event in
      guard let self else { return }
      if case .resynced = event { self.resyncs += 1 } else { self.keysRead.append(event) }
    }
    app.addDispatchObserver { [weak self] record in self?.records.append(record) }
  }

  func start() throws { try input.start() }

  /// A pipeline on the standard settings, started.
  static func started() throws -> KeyPipeline {
    let pipeline = try KeyPipeline()
    try pipeline.start()
    return pipeline
  }

  /// Runs the loop until `condition` holds; fails the test (throws) after `timeout` seconds.
  func wait(
    _ what: String, timeout: Seconds = 5, until condition: () -> Bool
  ) throws {
    guard loop.run(until: condition, timeout: timeout) else {
      throw TestbedError(description: "timed out after \(timeout) s waiting for \(what)")
    }
  }

  /// Waits until `count` mapped key events have been read in all.
  func waitForKeys(_ count: Int) throws {
    try wait("\(count) key events (read \(keysRead.count))") { keysRead.count >= count }
  }

  var openPaths: [String] { input.openDevices.map(\.path) }
}

extension Testbed {
  /// Adds the fixture device `name` and opens it with libevdev: the emulated device and the
  /// opened one (the caller closes it).
  func addOpened(_ name: String) throws -> (EmulatedDevice, EvdevDevice) {
    let emulated = try add(name)
    return (emulated, try EvdevDevice(path: emulated.devnode))
  }
}
