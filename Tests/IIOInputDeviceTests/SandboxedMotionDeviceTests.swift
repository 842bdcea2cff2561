import DBusTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension IIOInputDeviceTests {
  /// The Python motion example as a Flatpak app runs it (bwrap, the session bus through
  /// xdg-dbus-proxy with `--filter --talk=org.responderd.Daemon1`): the stream's socket, a
  /// descriptor in the reply, passes the proxy, and the samples arrive.
  @Test(
    "the Python example reads the stream from inside a Flatpak-like sandbox",
    .enabled(if: FlatpakSandbox.missing == nil, Comment(rawValue: FlatpakSandbox.missing ?? "")))
  func motionPythonExampleInASandbox() throws {
    let daemon = try MotionRig()
    let sandbox = try FlatpakSandbox(bus: daemon.bus, talk: ["org.responderd.Daemon1"], loop: daemon.loop)
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("examples/python-motion/motion_watch.py").path
    let example = try ChildProcess(
      sandbox.command(["/usr/bin/python3", script, "--interval", "0.05", "--count", "5"]), stdout: .capture,
      stderr: .capture)
    var text = ""
    daemon.feed(
      rate: 100, duration: 1,
      each: {
        example.readAvailable()
        text += example.takeBufferedOutput()
      })
    #expect(ChildProcess.exitCode(try example.waitForExit(timeout: 5)) == 0, "\(text)")
    text += try example.readToEnd(timeout: 2)
    let lines = text.split(separator: "\n")
    #expect(lines.count == 5, "\(text)")
    #expect(lines.allSatisfy { $0.hasSuffix(" 0.000000 0.000000 -0.999565") }, "\(text)")
    _ = daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2)
    #expect(daemon.api.streamCount == 0, "the example's exit ends its stream")
    daemon.stop()
  }
}
