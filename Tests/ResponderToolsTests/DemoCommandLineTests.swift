import Testing
import TouchScenes

/// The command line the GTK 4 and SDL 2 examples share: what they run with, or the status and
/// message they stop with.
@Suite struct DemoCommandLineTests {
  struct Unreadable: Error, CustomStringConvertible {
    var description: String { "/no/such.json: open: No such file or directory" }
  }

  func start(_ arguments: [String], read: (String) throws -> String = { _ in throw Unreadable() })
    -> DemoCommandLine.Start
  {
    DemoCommandLine.start("touch-demo-gtk", arguments, usage: "usage: touch-demo-gtk …\n", read: read)
  }

  @Test func helpStopsWithTheUsageAndZero() {
    guard case .stop(let status, let message) = start(["--help"]) else { Issue.record("ran"); return }
    #expect(status == 0 && message == "usage: touch-demo-gtk …\n")
  }

  @Test func aWrongOptionStopsWith64AndTheUsage() {
    guard case .stop(let status, let message) = start(["--bogus"]) else { Issue.record("ran"); return }
    #expect(status == 64 && message == "touch-demo-gtk: unknown option '--bogus'\nusage: touch-demo-gtk …\n")
  }

  @Test func aSceneThatCannotBeReadStopsWith65() {
    guard case .stop(let status, let message) = start(["--scene", "/no/such.json"]) else {
      Issue.record("ran")
      return
    }
    #expect(status == 65 && message == "touch-demo-gtk: /no/such.json: open: No such file or directory\n")
  }

  @Test func theBuiltInSceneRunsAtTheSizeAskedFor() {
    guard case .run(let options, let scene) = start(["--log", "--size", "640x480"]) else {
      Issue.record("stopped")
      return
    }
    #expect(options.log && options.sceneFile == nil)
    #expect(scene.screen.width == 640 && scene.screen.height == 480)
  }
}
