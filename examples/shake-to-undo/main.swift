// shake-to-undo: a small app with an undo stack that undoes the last edit when the device is shaken.
//
//   shake-to-undo [EDIT …]
//
// It keeps the edits given on the command line (or three sample ones) as its undo stack, registers
// with responderd for motion events, becomes first responder, and pops the stack at each shake
// (motionBegan), printing what it undoes. The events go through the app's own responder chain, as in
// UIKit: an `Editor` responder that can become first responder and overrides motionBegan.
// Try it with `responderctl send motion began`. Ctrl-C or SIGTERM unregisters and exits.
import ResponderClient

#if canImport(Glibc)
  import Glibc
#endif

/// The document being edited: the first responder of this app's chain.
final class Editor: Responder {
  private let app: Application
  private var undoStack: [String]

  init(app: Application, edits: [String]) {
    self.app = app
    self.undoStack = edits
  }

  override var next: Responder? { app }
  override var canBecomeFirstResponder: Bool { true }

  override func motionBegan(_ motion: EventSubtype, with event: Event?) {
    guard motion == .motionShake else { return super.motionBegan(motion, with: event) }
    if let edit = undoStack.popLast() {
      say("undo: \(edit) (\(undoStack.count) left)")
    } else {
      say("nothing to undo")
    }
  }

  override func motionEnded(_ motion: EventSubtype, with event: Event?) {
    guard motion == .motionShake else { return super.motionEnded(motion, with: event) }
    say("shake ended")
  }

  override func motionCancelled(_ motion: EventSubtype, with event: Event?) {
    guard motion == .motionShake else { return super.motionCancelled(motion, with: event) }
    say("shake cancelled")
  }
}

/// Prints a line at once (stdout may be a pipe).
func say(_ line: String) {
  var bytes = Array((line + "\n").utf8)
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
    if written <= 0 { return }
    offset += written
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--help" || arguments.first == "-h" {
  say("usage: shake-to-undo [EDIT …]   (undoes the last edit at each shake; Ctrl-C quits)")
  exit(0)
}
let edits = arguments.isEmpty ? ["typed 'hello'", "made it bold", "deleted a line"] : arguments

do {
  let session = try ClientSession()
  let app = Application(scheduler: session.scheduler)
  let editor = Editor(app: app, edits: edits)
  _ = editor.becomeFirstResponder()

  let client = try ResponderClient(
    session: session, path: "/org/responderd/examples/ShakeToUndo", eventTypes: [.motion])
  client.application = app
  client.addObserver { event in
    switch event {
    case .registered(let id): say("registered with responderd as responder \(id)")
    case .firstResponderChanged(let isFirst):
      say(isFirst ? "first responder: shake to undo" : "no longer first responder")
    case .daemonLost: say("responderd went away; waiting for it to come back")
    }
  }
  client.register(becomeFirstResponder: true) { result in
    if case .failure(let error) = result {
      say("responderd is not running (\(error.message)); waiting for it")
    }
  }
  say("undo stack: \(edits.joined(separator: ", "))")

  try session.onTermination {
    client.unregister { _ in session.stop() }
    // Also stop when the daemon does not answer.
    session.scheduler.schedule(after: 1) { session.stop() }
  }
  // The application does not own its first responder (as in UIKit): the editor lives as long as the loop runs.
  withExtendedLifetime(editor) { session.run() }
  session.close()
  say("bye")
} catch {
  say("shake-to-undo: \(error)")
  exit(1)
}
