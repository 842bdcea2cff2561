import EventLoop
import Glibc
import ResponderCore
import SystemCalls
import TouchDispatch
import TouchScenes
import WaylandTouch

// touch-demo: TouchDispatch in a Wayland window. Options: --scene FILE (the scene format of
// `responderctl touch replay`), --log (one JSON line per touch delivery and recognizer state
// change, as `touch replay` prints), --fullscreen, --size WxH, --timings (a line per action with
// the time from the socket being readable to the action, for the benchmark).

let usage = DemoCommandLine.usage(
  "touch-demo",
  extra: [
    (
      "--timings",
      "for each action, a line with the seconds from the compositor's socket becoming\n"
        + "                  readable to the action ({\"kind\":\"timing\", ...})"
    )
  ])

func fail(_ message: String, status: Int32 = 1) -> Never {
  writeText("touch-demo: \(message)\n", to: .standardError)
  exit(status)
}

let options: DemoCommandLine
do {
  options = try DemoCommandLine(Array(CommandLine.arguments.dropFirst()), extraFlags: ["--timings"])
} catch .help {
  writeText(usage, to: .standardOutput)
  exit(0)
} catch .usage(let message) {
  fail("\(message)\n\(usage)", status: 64)
}
let log = options.log
let timings = options.flags.contains("--timings")

let scene: TouchScene
do {
  var text = LiveScene.builtIn
  if let sceneFile = options.sceneFile {
    // Refused before it is read when too big, as `touch replay --scene` does.
    let bytes: [UInt8]
    do {
      bytes = try readRegularFile(sceneFile, maximumSize: TouchScene.maximumFileSize)
    } catch let refusal as FileRefusal {
      throw TouchScene.refused(sceneFile, reason: refusal.reason)
    }
    text = String(decoding: bytes, as: UTF8.self)
  }
  scene = try options.scene(text)
} catch {
  fail("\(error)", status: 65)
}

let loop: EventLoop
let display: WaylandDisplay
let demo: Demo
do {
  loop = try EventLoop()
  display = try WaylandDisplay(loop: loop)
  demo = try Demo(scene: scene, display: display, fullscreen: options.fullscreen)
} catch {
  fail("\(error)")
}
// Each line is written as it happens (stdout may be a pipe).
if log { demo.world.emit = { writeText($0 + "\n", to: .standardOutput) } }
if log || timings {
  // Not a line `touch replay` prints: the window as the compositor configured it (its first one
  // says the window is configured).
  demo.onWindowChange = { size, scale, fullscreen in
    writeText(
      demo.live.windowLine(size: size, scale: scale, fullscreen: fullscreen) + "\n", to: .standardOutput)
  }
}
if timings {
  var readAt = loop.scheduler.now
  display.onReadable = { readAt = $0 }
  demo.world.window.addGestureObserver { observation in
    guard case .actionSent(let recognizer) = observation else { return }
    let seconds = loop.scheduler.now - readAt
    writeText(
      "{\"kind\":\"timing\", \"id\":\"\(recognizer.name ?? "")\", \"state\":\"\(recognizer.stateName)\", "
        + "\"readToAction\":\(seconds)}\n",
      to: .standardOutput)
  }
}
var status: Int32 = 0
display.onError = { error in
  writeText("touch-demo: \(error)\n", to: .standardError)
  status = 1
  loop.stop()
}
demo.window.onClose = { loop.stop() }
do {
  try loop.onSignals([SIGINT, SIGTERM]) { _ in loop.stop() }
} catch {
  fail("\(error)")
}
loop.run()
exit(status)
