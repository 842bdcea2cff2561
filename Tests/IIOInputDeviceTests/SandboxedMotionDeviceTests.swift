import DBusTestSupport
import Foundation
import TestConditions
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
    .enabledUnless(missing: FlatpakSandbox.missing))
  func motionPythonExampleInASandbox() throws {
    let daemon = try MotionRig()
    let sandbox = try FlatpakSandbox(bus: daemon.bus, talk: ["org.responderd.Daemon1"], loop: daemon.loop)
    let script = pythonMotionExample.appendingPathComponent("motion_watch.py").path
    let example = try ChildProcess(
      sandbox.command(["/usr/bin/python3", script, "--interval", "0.05", "--count", "5"]), stdout: .capture,
      stderr: .capture)
    let (text, exitCode) = try daemon.run(example, feedingFor: 1)
    #expect(exitCode == 0, "\(text)")
    let lines = text.split(separator: "\n")
    #expect(lines.count == 5, "\(text)")
    #expect(lines.allSatisfy { $0.hasSuffix(" 0.000000 0.000000 -0.999565") }, "\(text)")
    _ = daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2)
    #expect(daemon.api.streamCount == 0, "the example's exit ends its stream")
    daemon.stop()
  }
}
