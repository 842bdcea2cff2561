import CSDL2
import EventTime
import ResponderCore
import TouchDispatch
import TouchScenes

/// An SDL window showing a live scene: its `SDL_FINGER*` events go to `TouchInput`, and SDL's
/// renderer draws the scene's views.
final class TouchWindow {
  let window: OpaquePointer
  let live: LiveScene
  private let renderer: OpaquePointer
  private let input: TouchInput
  private let scheduler: any Scheduler
  private var clock = TouchClock()
  /// The fingers on the window, by SDL's finger id.
  private var contacts: [SDL_FingerID: ContactSample] = [:]
  private var nextTrackingID = 0
  private var needsDisplay = true
  /// The compositor's cancels, which SDL 2.26 drops (nil off Wayland).
  private var cancels: WaylandTouchCancel?

  init(scene: TouchScene, scheduler: any Scheduler, fullscreen: Bool) throws(SDLError) {
    self.scheduler = scheduler
    live = LiveScene(scene: scene, scheduler: scheduler)
    input = TouchInput(window: live.world.window, source: "sdl")
    var flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
    if fullscreen { flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
    guard
      let window = SDL_CreateWindow(
        "TouchDispatch demo (SDL 2)", 0x1FFF_0000, 0x1FFF_0000, Int32(scene.screen.width),
        Int32(scene.screen.height), flags)
    else { throw SDLError("SDL_CreateWindow") }
    self.window = window
    guard let renderer = SDL_CreateRenderer(window, -1, 0) else { throw SDLError("SDL_CreateRenderer") }
    self.renderer = renderer
    cancels = WaylandTouchCancel(window: window)
    live.onChange = { [unowned self] in needsDisplay = true }
  }

  /// The window's size in points (the views' coordinates; SDL's drawable may have more pixels).
  var size: Size {
    var width: Int32 = 0
    var height: Int32 = 0
    SDL_GetWindowSize(window, &width, &height)
    return Size(width: Double(width), height: Double(height))
  }

  /// Pixels a point: the renderer's output against the window's size.
  var scale: Double {
    var width: Int32 = 0
    var height: Int32 = 0
    SDL_GetRendererOutputSize(renderer, &width, &height)
    return size.width > 0 ? Double(width) / size.width : 1
  }

  var isFullscreen: Bool { SDL_GetWindowFlags(window) & SDL_WINDOW_FULLSCREEN.rawValue != 0 }

  /// One `SDL_FINGER*` event, or a window event, into TouchInput. SDL gives one event per finger
  /// and no frame: after each, every finger on the window goes to `process`. Coordinates come
  /// normalized to 0…1 of the window: times its size in points. SDL has no cancel: the
  /// compositor's comes from `WaylandTouchCancel`, and the window losing focus with fingers down
  /// is taken as one too (the shell took the touches; off Wayland it is the only sign).
  func handle(_ event: SDL_Event) {
    if let cancels, event.type == cancels.eventType {
      cancelAll()
      return
    }
    switch SDL_EventType(event.type) {
    case SDL_FINGERDOWN, SDL_FINGERMOTION, SDL_FINGERUP:
      let finger = event.tfinger
      // Milliseconds since SDL started, put on the scheduler's clock.
      let time = clock.time(ofMilliseconds: finger.timestamp, now: scheduler.now)
      let location = Point(x: Double(finger.x) * size.width, y: Double(finger.y) * size.height)
      if SDL_EventType(event.type) == SDL_FINGERUP {
        guard contacts.removeValue(forKey: finger.fingerId) != nil else { return }
      } else if contacts[finger.fingerId] != nil {
        contacts[finger.fingerId]?.location = location
      } else if SDL_EventType(event.type) == SDL_FINGERDOWN {
        let used = Set(contacts.values.map(\.slot))
        let slot = (0...).first { !used.contains($0) }!
        contacts[finger.fingerId] = ContactSample(slot: slot, trackingID: nextTrackingID, location: location)
        nextTrackingID += 1
      } else {
        return  // a finger cancelled while down
      }
      input.process(contacts.values.sorted { $0.slot < $1.slot }, at: time)
    case SDL_WINDOWEVENT where event.window.event == UInt8(SDL_WINDOWEVENT_FOCUS_LOST.rawValue):
      cancelAll()
    case SDL_WINDOWEVENT where event.window.event == UInt8(SDL_WINDOWEVENT_SIZE_CHANGED.rawValue):
      live.resize(to: size)
    case SDL_WINDOWEVENT where event.window.event == UInt8(SDL_WINDOWEVENT_EXPOSED.rawValue):
      needsDisplay = true
    default: break
    }
  }

  /// Every finger on the window cancelled. SDL still counts them down, but the compositor sends
  /// nothing more for them (an up or motion of one is ignored: it is no longer in `contacts`).
  private func cancelAll() {
    guard !contacts.isEmpty else { return }
    contacts.removeAll()
    input.cancelAll(at: scheduler.now)
  }

  /// Draws the scene when it changed: each view a polygon in points (the renderer scaled to the
  /// window's pixels).
  func drawIfNeeded() {
    guard needsDisplay else { return }
    needsDisplay = false
    let scale = Float(self.scale)
    SDL_RenderSetScale(renderer, scale, scale)
    setColor(LiveScene.background)
    SDL_RenderClear(renderer)
    for shape in live.shapes {
      let color = SDL_Color(
        r: UInt8((shape.color >> 16) & 0xFF), g: UInt8((shape.color >> 8) & 0xFF),
        b: UInt8(shape.color & 0xFF),
        a: 0xFF)
      let vertices = shape.corners.map {
        SDL_Vertex(
          position: SDL_FPoint(x: Float($0.x), y: Float($0.y)), color: color,
          tex_coord: SDL_FPoint(x: 0, y: 0))
      }
      // A fan of triangles from the first corner (the shapes are convex).
      let indices: [Int32] = (1..<max(1, vertices.count - 1)).flatMap { [0, Int32($0), Int32($0) + 1] }
      SDL_RenderGeometry(renderer, nil, vertices, Int32(vertices.count), indices, Int32(indices.count))
    }
    SDL_RenderPresent(renderer)
  }

  private func setColor(_ color: UInt32) {
    SDL_SetRenderDrawColor(
      renderer, UInt8((color >> 16) & 0xFF), UInt8((color >> 8) & 0xFF), UInt8(color & 0xFF), 0xFF)
  }
}

/// An SDL call that failed, with SDL_GetError's reason.
struct SDLError: Error, CustomStringConvertible {
  let description: String

  init(_ call: String) {
    description = "\(call) failed: \(String(cString: SDL_GetError()))"
  }
}
