import DBus
import DBusTestSupport
import EventLoop
import SystemCalls

/// The player side of a desktop test: dbus-monitor counting the Player calls of the bus, and mpv
/// (mpv-mpris) with two tracks; both outside umockdev (`environment` is the desktop's plain one).
final class PlayerHarness {
  let directory: String
  let environment: [String: String]
  private let address: String
  private let loop: EventLoop
  private var children: [ChildProcess] = []
  private var sources: [IOSource] = []

  init(directory: String, environment: [String: String], busAddress: String, loop: EventLoop) {
    self.directory = directory
    self.environment = environment
    self.address = busAddress
    self.loop = loop
  }

  /// dbus-monitor for the Player calls of the bus.
  func startMonitor() throws -> PlayerCalls {
    let calls = PlayerCalls()
    let monitor = try ChildProcess(
      ["dbus-monitor", "--address", address, "type='method_call',interface='org.mpris.MediaPlayer2.Player'"],
      environment: environment, inheritEnvironment: false, stdout: .capture, stderr: .null)
    children.append(monitor)
    // Its first line (the monitor's own NameAcquired signal) says it listens.
    _ = try monitor.readLine(timeout: 10)
    sources.append(
      try loop.register(fd: monitor.outputDescriptor, events: .readable) { _ in
        _ = monitor.readAvailable()
        calls.feed(monitor.takeBufferedOutput())
      })
    return calls
  }

  /// mpv with two tracks, paused, on the bus; returns once it owns its MPRIS name.
  func startPlayer(connection: DBusConnection) throws -> Player {
    for (name, pitch) in [("one", 440), ("two", 660)] {
      // Long enough that neither ends during the test (a track change is a signal of its own).
      let sox = try ChildProcess(
        [
          "sox", "-n", "-r", "8000", "-c", "1", "\(directory)/\(name).ogg", "synth", "300", "sine",
          "\(pitch)", "vol", "0.2",
        ],
        environment: environment, inheritEnvironment: false, stdout: .null, stderr: .null)
      guard ChildProcess.exitedSuccessfully(try sox.waitForExit(timeout: 60)) else {
        throw TestSupportError("sox could not write \(name).ogg")
      }
    }
    let mpv = try ChildProcess(
      [
        "mpv", "--no-config", "--idle=yes", "--ao=null", "--vo=null", "--script=/usr/lib/mpv-mpris/mpris.so",
        "--no-terminal", "--pause", "\(directory)/one.ogg", "\(directory)/two.ogg",
      ], environment: environment, inheritEnvironment: false, stdout: .null, stderr: .null)
    children.append(mpv)
    var owner: String?
    let watch = connection.watchNameOwner("org.mpris.MediaPlayer2.mpv") { owner = $0 }
    defer { watch.cancel() }
    guard loop.run(until: { owner != nil }, timeout: 15), let owner else {
      throw TestSupportError("mpv did not appear on the bus as org.mpris.MediaPlayer2.mpv within 15 s")
    }
    return Player(uniqueName: owner)
  }

  func stop() {
    for source in sources { source.remove() }
    sources.removeAll()
    for child in children.reversed() { child.terminate() }
    children.removeAll()
  }

  deinit { stop() }
}

/// An application that becomes first responder for remote-control events (`responderctl
/// respond`) and writes the subtype of each event it gets to a file, one a line.
final class FirstResponderApp {
  let process: ChildProcess
  private let received: String

  /// Starts it and waits (10 s at most) until responderd says it is first responder.
  init(_ fixture: DaemonFixture, directory: String) throws {
    let responderctl = try BuiltProducts.path(of: "responderctl")
    received = directory + "/app.txt"
    process = try ChildProcess(
      [
        responderctl, "respond", "--events", "remote-control", "--", "sh", "-c",
        "echo \"$RESPONDERD_EVENT_SUBTYPE\" >> \(received)",
      ],
      environment: fixture.bus.environment, stdout: .null, stderr: .null)
    try fixture.waitFor("the application to be first responder", timeout: 10) {
      (try? fixture.run([responderctl, "status"]).output.contains("first responder: none")) == false
    }
  }

  /// The events it got so far.
  var lines: [String] { ((try? readTextFile(received)) ?? "").split(separator: "\n").map(String.init) }

  func terminate() { process.terminate() }

  deinit { process.terminate() }
}
