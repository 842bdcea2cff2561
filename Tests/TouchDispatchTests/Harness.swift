import EventTime
import ResponderCore
import TouchDispatch

/// Lines of what happened, in order: deliveries to recording views, recognizer states and
/// actions, control events.
final class Log {
  var lines: [String] = []
  /// Whether state changes to possible (resets) are logged.
  var logsResets = false
  func add(_ line: String) { lines.append(line) }
  /// The lines, then forgets them.
  func take() -> [String] {
    defer { lines.removeAll() }
    return lines
  }
}

func ids(_ touches: Set<Touch>) -> String {
  touches.map(\.identifier).sorted().map(String.init).joined(separator: ",")
}

/// A view that logs every touches message it gets, and does not pass them on.
final class RecordingView: View {
  let log: Log
  /// Whether touchesBegan lines show the tap counts.
  var showsTapCount = false
  init(_ name: String, frame: Rect, log: Log) {
    self.log = log
    super.init(frame: frame)
    identifier = name
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
    let taps = touches.sorted { $0.identifier < $1.identifier }.map { String($0.tapCount) }
    log.add(
      "\(identifier!) touchesBegan \(ids(touches))"
        + (showsTapCount ? " tapCount \(taps.joined(separator: ","))" : ""))
  }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
    log.add("\(identifier!) touchesMoved \(ids(touches))")
  }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
    log.add("\(identifier!) touchesEnded \(ids(touches))")
  }
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
    log.add("\(identifier!) touchesCancelled \(ids(touches))")
  }
}

/// A window on virtual time with a scripted touchscreen.
final class Harness {
  let scheduler: VirtualScheduler
  let app: Application
  let window: Window
  let input: TouchInput
  let log = Log()
  /// Whether state changes to possible (resets) are logged.
  var logResets: Bool {
    get { log.logsResets }
    set { log.logsResets = newValue }
  }
  private var contacts: [Int: Point] = [:]

  init(width: Double = 400, height: Double = 800, start: Seconds = 0) {
    scheduler = VirtualScheduler(now: start)
    app = Application(scheduler: scheduler)
    window = Window(frame: Rect(x: 0, y: 0, width: width, height: height), application: app)
    input = TouchInput(window: window)
    window.addGestureObserver { [log] observation in
      switch observation {
      case .stateChanged(let recognizer, _, let to):
        if to == .possible && !log.logsResets { return }
        log.add("\(recognizer.name ?? "?") \(to.name(isDiscrete: recognizer.isDiscrete))")
      case .actionSent(let recognizer):
        log.add("\(recognizer.name ?? "?") action")
      }
    }
  }

  /// The fingers still on the screen at the end of a test are lifted (cancelled): a touch holds
  /// its window, and the window the touches it tracks, until they end.
  deinit {
    if !input.activeTouches.isEmpty { input.cancelAll(at: scheduler.now) }
  }

  var now: Seconds { scheduler.now }

  /// A recording view added to `parent` (the window when nil), taking several touches with
  /// `multipleTouch`.
  @discardableResult
  func addView(
    _ name: String, _ x: Double, _ y: Double, _ w: Double, _ h: Double, to parent: View? = nil,
    multipleTouch: Bool = false
  ) -> RecordingView {
    let view = RecordingView(name, frame: Rect(x: x, y: y, width: w, height: h), log: log)
    if multipleTouch { view.isMultipleTouchEnabled = true }  // else UIKit's default, one touch
    (parent ?? window).addSubview(view)
    return view
  }

  /// Attaches `recognizer` to `view`, named `name`.
  @discardableResult
  func attach<R: GestureRecognizer>(_ recognizer: R, _ name: String, to view: View) -> R {
    recognizer.name = name
    view.addGestureRecognizer(recognizer)
    return recognizer
  }

  /// Single and double taps on a view "V" (0, 0, 400, 800), the single requiring the double to fail.
  @discardableResult
  func singleAndDoubleTaps() -> (single: TapGestureRecognizer, double: TapGestureRecognizer) {
    let view = addView("V", 0, 0, 400, 800)
    let single = attach(TapGestureRecognizer(), "single", to: view)
    let double = attach(TapGestureRecognizer(), "double", to: view)
    double.numberOfTapsRequired = 2
    single.require(toFail: double)
    return (single, double)
  }

  /// Adds `control` to `parent` (the window by default) as `name`, its events logged ("B touchDown").
  @discardableResult
  func add<C: Control>(_ control: C, _ name: String, to parent: View? = nil) -> C {
    control.identifier = name
    (parent ?? window).addSubview(control)
    control.addHandler(for: .allEvents) { [log] control, event in
      log.add("\(control.identifier ?? "control") \(event)")
    }
    return control
  }

  func advance(to time: Seconds) { scheduler.advance(to: time) }
  func runUntilIdle() { scheduler.runUntilIdle() }

  private func send(at time: Seconds) {
    scheduler.advance(to: time)
    let samples = contacts.keys.sorted().map { ContactSample(slot: $0, location: contacts[$0]!) }
    input.process(samples, at: time)
  }

  /// The fingers of `points` at those places in one frame: down if new, else moved.
  private func place(_ points: [Int: Point], at time: Seconds) {
    for (slot, point) in points { contacts[slot] = point }
    send(at: time)
  }

  func down(_ slot: Int, _ x: Double, _ y: Double, at time: Seconds) {
    place([slot: Point(x: x, y: y)], at: time)
  }

  /// Several fingers down in one frame.
  func down(_ points: [Int: Point], at time: Seconds) { place(points, at: time) }

  func move(_ slot: Int, _ x: Double, _ y: Double, at time: Seconds) {
    place([slot: Point(x: x, y: y)], at: time)
  }

  /// Several fingers moved in one frame.
  func move(_ points: [Int: Point], at time: Seconds) { place(points, at: time) }

  /// One frame in which the `lifting` fingers lift and the others move to `points`.
  func move(_ points: [Int: Point], lifting: [Int], at time: Seconds) {
    for (slot, point) in points { contacts[slot] = point }
    for slot in lifting { contacts[slot] = nil }
    send(at: time)
  }

  func up(_ slots: Int..., at time: Seconds) {
    for slot in slots { contacts[slot] = nil }
    send(at: time)
  }

  func cancelAll(at time: Seconds) {
    scheduler.advance(to: time)
    contacts.removeAll()
    input.cancelAll(at: time)
  }

  /// A tap: down at `time`, up `duration` later.
  func tap(_ x: Double, _ y: Double, at time: Seconds, slot: Int = 0, duration: Seconds = 0.08) {
    down(slot, x, y, at: time)
    up(slot, at: time + duration)
  }

  /// Moves the fingers along `path` (fraction 0…1 → positions) for `duration` seconds, sampled at
  /// `hz` frames per second; the fingers must be down at `path(0)` already. Returns the end time.
  @discardableResult
  func glide(
    from start: Seconds, duration: Seconds, hz: Double, _ path: (Double) -> [Int: Point]
  ) -> Seconds {
    let frames = Int((duration * hz).rounded())
    for k in 1...max(frames, 1) {
      let fraction = Double(k) / Double(max(frames, 1))
      move(path(fraction), at: start + duration * fraction)
    }
    return start + duration
  }

  /// One finger pressed at `from`, moved in a straight line to `to` over `duration` at `hz`, then
  /// lifted (unless `lift` is false). Returns the end time.
  @discardableResult
  func drag(
    _ slot: Int = 0, from: Point, to: Point, at time: Seconds, duration: Seconds, hz: Double = 60,
    lift: Bool = true
  ) -> Seconds {
    down(slot, from.x, from.y, at: time)
    let end = glide(from: time, duration: duration, hz: hz) { f in
      [slot: Point(x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f)]
    }
    if lift { up(slot, at: end) }
    return end
  }
}

func point(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }
