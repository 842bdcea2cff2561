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

let usage = """
  usage: touch-demo [--scene FILE] [--log] [--fullscreen] [--size WxH] [--timings]
    --scene FILE  views and recognizers to show (responderctl touch replay's scene format;
                  the screen's width and height are the window's size)
    --log         print every touch delivery, recognizer state change and action as a JSON line
    --fullscreen  ask the compositor for a fullscreen window
    --size WxH    the window's size in points (default: the scene's screen)
    --timings     for each action, a line with the seconds from the compositor's socket becoming
                  readable to the action ({"kind":"timing", ...})

  """

func fail(_ message: String, status: Int32 = 1) -> Never {
  writeText("touch-demo: \(message)\n", to: .standardError)
  exit(status)
}

var sceneFile: String?
var log = false
var fullscreen = false
var timings = false
var size: Size?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--scene":
    guard let file = arguments.popFirst() else { fail("--scene needs a file", status: 64) }
    sceneFile = file
  case "--log": log = true
  case "--fullscreen": fullscreen = true
  case "--timings": timings = true
  case "--size":
    let parts = (arguments.popFirst() ?? "").split(separator: "x").compactMap { Double($0) }
    guard parts.count == 2, parts.allSatisfy({ $0 >= 1 && $0 <= 16384 }) else {
      fail("--size needs WIDTHxHEIGHT in points, for example 640x480", status: 64)
    }
    size = Size(width: parts[0], height: parts[1])
  case "--help", "-h":
    writeText(usage, to: .standardOutput)
    exit(0)
  default: fail("unknown option '\(argument)'\n\(usage)", status: 64)
  }
}

var scene: TouchScene
do {
  if let sceneFile {
    let bytes: [UInt8]
    do {
      bytes = try readRegularFile(sceneFile, maximumSize: TouchScene.maximumFileSize)
    } catch let refusal as FileRefusal {
      throw TouchScene.refused(sceneFile, reason: refusal.reason)
    }
    scene = try TouchScene.parse(String(decoding: bytes, as: UTF8.self), file: sceneFile)
  } else {
    scene = try TouchScene.parse(demoScene, file: "built-in scene")
  }
} catch {
  fail("\(error)", status: 65)
}
if let size {
  scene.screen.width = size.width
  scene.screen.height = size.height
}

let loop: EventLoop
let display: WaylandDisplay
let demo: Demo
do {
  loop = try EventLoop()
  display = try WaylandDisplay(loop: loop)
  demo = try Demo(scene: scene, display: display, fullscreen: fullscreen)
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
      "{\"t\":\(loop.scheduler.now), \"kind\":\"window\", \"width\":\(size.width), \"height\":\(size.height), "
        + "\"scale\":\(scale), \"fullscreen\":\(fullscreen)}\n", to: .standardOutput)
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
