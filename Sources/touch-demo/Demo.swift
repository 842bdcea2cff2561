import EventLoop
import EventTime
import ResponderCore
import TouchDispatch
import TouchScenes
import WaylandTouch

/// A scene live in a Wayland window (`LiveScene`: every recognizer acts on its view), drawn in
/// shared memory.
final class Demo {
  let live: LiveScene
  let window: WaylandWindow
  private let display: WaylandDisplay
  private let input: TouchInput
  var world: SceneWorld { live.world }
  /// Called when the compositor configured the window (its size in points, its scale, fullscreen).
  var onWindowChange: (Size, Double, Bool) -> Void = { _, _, _ in }

  init(scene: TouchScene, display: WaylandDisplay, fullscreen: Bool) throws {
    self.display = display
    live = LiveScene(scene: scene, scheduler: display.loop.scheduler)
    window = try WaylandWindow(
      display: display, title: "TouchDispatch demo", appID: "org.responderd.TouchDemo",
      size: Size(width: scene.screen.width, height: scene.screen.height), fullscreen: fullscreen)
    input = TouchInput(window: live.world.window, source: "wayland")
    display.attach(input, to: window.surface)
    live.onChange = { [unowned self] in window.setNeedsDisplay() }
    window.onResize = { [unowned self] size in
      live.resize(to: size)
      onWindowChange(size, window.scale, window.isFullscreen)
    }
    window.draw = { [unowned self] buffer in
      let painter = Painter(buffer: buffer)
      painter.fill(LiveScene.background)
      for shape in live.shapes { painter.fill(shape.corners, shape.color) }
    }
  }
}
