import DBusTestSupport
import EventLoop
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `scripts/demo` (the README's third command): emulated headset and accelerometer, a real mpv,
/// responderd and the Python apps on a private bus; every step's effect observed, every process
/// reaped, also when interrupted.
@Suite(.serialized) struct DemoTests {
  static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../scripts/demo").standardizedFileURL.path

  /// The environment of a bare machine: no session bus; the binaries of this build.
  var environment: [String: String] {
    ["RESPONDERD_BIN": BuiltProducts.directory, "DBUS_SESSION_BUS_ADDRESS": "", "LD_PRELOAD": ""]
  }

  /// The pids the demo says it stopped and reaped.
  func reaped(_ output: String) -> [Int32] {
    guard
      let line = output.split(separator: "\n").first(where: { $0.hasPrefix("demo: stopped and reaped: ") })
    else { return [] }
    return line.dropFirst("demo: stopped and reaped: ".count).split(separator: ", ").compactMap {
      $0.split(separator: " ").last.flatMap { Int32($0) }
    }
  }

  @Test func theDemoShowsEveryStepAndItsEffect() throws {
    let loop = try EventLoop()
    let start = monotonicNow()
    let result = try ChildProcess.run([Self.demo], environment: environment, loop: loop, timeout: 60)
    #expect(result.exitCode == 0, "\(result)")
    #expect(monotonicNow() - start < 60)
    for expected in [
      "responderd: remoteControl togglePlayPause -> handled by mpris", "player: mpv paused",
      "responderd: remoteControl nextTrack -> handled by mpris",
      "player: mpv on the next track: tone-e660.ogg",
      "responderd: remoteControl beginSeekingForward -> handled by mpris", "player: mpv seeked forward",
      "responderd: motion motionShake began -> handled by shake-to-undo#",
      "app: shake_to_undo.py undo: world (edits: hello brave new)",
      "app: calls.py ringing", "responderd: remoteControl togglePlayPause -> handled by calls#",
      "app: calls.py answered (mpv stays paused)", "app: calls.py hung up", "player: mpv playing",
      "demo: every effect was observed",
    ] {
      #expect(result.output.contains(expected), "\(expected)")
    }
    let pids = reaped(result.output)
    #expect(pids.count == 6)
    for pid in pids { #expect(kill(pid, 0) != 0, "process \(pid) is still there") }
  }

  @Test func anInterruptedDemoStopsAndReapsEverything() throws {
    let demo = try ChildProcess([Self.demo], environment: environment, stdout: .capture, stderr: .capture)
    var said: [String] = []
    while let line = try demo.readLine(timeout: 40) {
      said.append(line)
      if line.hasPrefix("1. you:") { break }
    }
    demo.signal(SIGINT)
    let rest = try demo.readToEnd(timeout: 20)
    let status = try demo.waitForExit(timeout: 5)
    let output = said.joined(separator: "\n") + "\n" + rest
    #expect(ChildProcess.exitCode(status) == 130, "\(output)")
    #expect(output.contains("demo: interrupted"))
    let pids = reaped(output)
    #expect(pids.count == 6, "\(output)")
    for pid in pids { #expect(kill(pid, 0) != 0, "process \(pid) is still there") }
  }
}
