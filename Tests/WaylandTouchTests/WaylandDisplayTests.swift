import EventLoop
import Testing
import WaylandTouch

/// The connection without a compositor: one clear error, no crash.
@Suite struct WaylandDisplayTests {
  @Test func noCompositorIsOneClearError() throws {
    let loop = try EventLoop()
    let socket = "/nonexistent/wayland-touch-test"
    do {
      _ = try WaylandDisplay(loop: loop, name: socket)
      Issue.record("connected to nothing")
    } catch {
      #expect(
        "\(error)" == "cannot connect to the Wayland compositor at '\(socket)': No such file or directory")
    }
  }
}
