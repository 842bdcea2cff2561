import CSDL2
import EventTime
import Glibc
import ResponderCore
import SystemCalls
import TouchDispatch
import TouchScenes

// touch-demo-sdl: touch-demo's scenes in an SDL 2 window (SDL's Wayland video driver unless
// SDL_VIDEODRIVER says otherwise). SDL_FINGER* events go to TouchDispatch's TouchInput, SDL's
// renderer draws the views, and --log prints the JSON lines touch-demo prints
// (docs/touch-apps.md). Options: --scene FILE, --log, --fullscreen, --size WxH.

let usage = DemoCommandLine.usage("touch-demo-sdl")

func fail(_ message: String, status: Int32 = 1) -> Never {
  writeText("touch-demo-sdl: \(message)\n", to: .standardError)
  exit(status)
}

let options: DemoCommandLine
let scene: TouchScene
switch DemoCommandLine.start(
  "touch-demo-sdl", Array(CommandLine.arguments.dropFirst()), usage: usage, read: readTextFile)
{
case .run(let given, let shown): (options, scene) = (given, shown)
case .stop(let status, let message):
  writeText(message, to: status == 0 ? .standardOutput : .standardError)
  exit(status)
}

/// CLOCK_MONOTONIC in seconds, the project's clock.
func monotonic() -> Seconds {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

// Wayland unless the environment asks for another driver.
SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, "wayland", SDL_HINT_DEFAULT)
guard SDL_Init(SDL_INIT_VIDEO) == 0 else { fail(SDLError("SDL_Init").description) }
defer { SDL_Quit() }
// TouchDispatch's timers (a long press, a multi-tap's window) on the loop's thread: the loop
// advances this scheduler to CLOCK_MONOTONIC after each wake-up and sleeps until its next deadline.
let scheduler = VirtualScheduler(now: monotonic())
let demo: TouchWindow
do {
  demo = try TouchWindow(scene: scene, scheduler: scheduler, fullscreen: options.fullscreen)
} catch {
  fail(error.description)
}
var lastWindowLine = ""
/// The window line, whenever the window's size, scale or fullscreen changed.
@MainActor func windowLine() {
  let line = demo.live.windowLine(size: demo.size, scale: demo.scale, fullscreen: demo.isFullscreen)
  let withoutTime = String(line.drop { $0 != "," })
  guard withoutTime != lastWindowLine else { return }
  lastWindowLine = withoutTime
  writeText(line + "\n", to: .standardOutput)
}
// Each line is written as it happens (stdout may be a pipe).
if options.log { demo.live.world.emit = { writeText($0 + "\n", to: .standardOutput) } }
demo.live.resize(to: demo.size)
if options.log { windowLine() }

var running = true
var event = SDL_Event()
while running {
  scheduler.advance(to: monotonic())
  demo.drawIfNeeded()
  let received: Int32
  if let deadline = scheduler.nextDeadline {
    received = SDL_WaitEventTimeout(&event, Int32(max(0, ((deadline - monotonic()) * 1000).rounded(.up))))
  } else {
    received = SDL_WaitEvent(&event)
  }
  guard received != 0 else { continue }
  repeat {
    scheduler.advance(to: monotonic())
    if SDL_EventType(event.type) == SDL_QUIT {
      running = false
    }
    demo.handle(event)
    if options.log && SDL_EventType(event.type) == SDL_WINDOWEVENT { windowLine() }
  } while SDL_PollEvent(&event) != 0
}
