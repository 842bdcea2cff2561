import EventTime
import InputCodes
import ResponderCore
import TouchDispatch

/// `responderctl touch replay FILE.evemu --scene SCENE.json`: a touchscreen recording played into a
/// scene on virtual time, with the same code as a live window. One JSON object per line comes out,
/// in order, `t` on the recording's clock:
///
/// - `{"t":5.1, "kind":"touches", "method":"touchesBegan", "view":"A", "touches":[{"slot":0,
///   "phase":"began","x":150,"y":300,"tapCount":1}]}` for every delivery to a view (x and y in
///   screen points);
/// - `{"t":5.2, "kind":"recognizer", "id":"t2", "state":"recognized"}` for every state change
///   (including the return to possible), `{"t":5.2, "kind":"action", "id":"t2",
///   "state":"recognized"}` for every action message sent;
/// - `{"t":5.2, "kind":"control", "view":"B", "event":"touchUpInside"}` for every control event.
///
/// The screen maps linearly onto the recording's ABS_MT_POSITION_X/Y ranges (its `A:` lines),
/// turned by the scene's rotation. At the end of the file, time runs on until every pending timer
/// has fired.
public enum TouchReplay {
  /// Replays `recording` (evemu text) into `scene` (JSON text), calling `output` with each line.
  /// Errors in either file name the file, the line (and column) and the problem.
  public static func run(
    recording recordingText: String, recordingFile: String, scene sceneText: String, sceneFile: String,
    output: (String) -> Void
  ) throws {
    let scene = try TouchScene.parse(sceneText, file: sceneFile)
    let recording: EvemuRecording
    do {
      recording = try EvemuRecording(text: recordingText)
    } catch let error as EvemuRecording.ParseError {
      throw ToolInputError(file: recordingFile, line: error.line, message: error.message)
    }
    guard let xAxis = recording.absoluteAxes[InputCode.ABS_MT_POSITION_X] else {
      throw ToolInputError(
        file: recordingFile,
        message: "no 'A: 35 …' line: the range of ABS_MT_POSITION_X is needed to map the screen")
    }
    guard let yAxis = recording.absoluteAxes[InputCode.ABS_MT_POSITION_Y] else {
      throw ToolInputError(
        file: recordingFile,
        message: "no 'A: 36 …' line: the range of ABS_MT_POSITION_Y is needed to map the screen")
    }
    guard xAxis.maximum > xAxis.minimum, yAxis.maximum > yAxis.minimum else {
      throw ToolInputError(file: recordingFile, message: "ABS_MT_POSITION_X/Y ranges are empty")
    }
    var pressure: ClosedRange<Int32>?
    if let axis = recording.absoluteAxes[InputCode.ABS_MT_PRESSURE], axis.maximum > axis.minimum {
      pressure = axis.minimum...axis.maximum
    }
    let calibration = TouchCalibration(
      xRange: xAxis.minimum...xAxis.maximum, yRange: yAxis.minimum...yAxis.maximum,
      screen: Size(width: scene.screen.width, height: scene.screen.height), rotation: scene.screen.rotation,
      pressureRange: pressure)

    let scheduler = VirtualScheduler(now: recording.events.first?.time ?? 0)
    let world = SceneWorld(scene: scene, scheduler: scheduler)
    var lines: [String] = []
    world.emit = { lines.append($0) }
    let input = TouchscreenInput(
      window: world.window, calibration: calibration, source: "replay:\(recordingFile)")
    func flush() {
      for line in lines { output(line) }
      lines.removeAll()
    }
    for event in recording.events {
      scheduler.advance(to: event.time)
      input.handle(event)
      flush()
    }
    scheduler.runUntilIdle()
    flush()
  }
}

/// The window, views and recognizers a scene describes, reporting what happens as JSON lines.
final class SceneWorld {
  let scheduler: VirtualScheduler
  let application: Application
  let window: Window
  var emit: (String) -> Void = { _ in }
  private var delegates: [SimultaneityDelegate] = []

  init(scene: TouchScene, scheduler: VirtualScheduler) {
    self.scheduler = scheduler
    application = Application(scheduler: scheduler)
    window = Window(
      frame: Rect(x: 0, y: 0, width: scene.screen.width, height: scene.screen.height),
      application: application)
    var views: [String: View] = [:]
    for spec in scene.views {
      let view: View = spec.control ? Button(frame: spec.frame) : View(frame: spec.frame)
      view.identifier = spec.id
      view.isHidden = spec.hidden
      view.isUserInteractionEnabled = spec.interactive
      view.alpha = spec.alpha
      view.clipsToBounds = spec.clipsToBounds
      view.isMultipleTouchEnabled = spec.multipleTouch
      view.isExclusiveTouch = spec.exclusiveTouch
      if let control = view as? Control {
        control.addHandler(for: .allEvents) { [unowned self] control, event in
          self.line([
            ("t", self.time), ("kind", .string("control")), ("view", .string(control.identifier ?? "")),
            ("event", .string(event.description)),
          ])
        }
      }
      views[spec.id] = view
    }
    for spec in scene.views {
      let parent = spec.parent.flatMap { views[$0] } ?? window
      parent.addSubview(views[spec.id]!)
    }
    var recognizers: [String: GestureRecognizer] = [:]
    for spec in scene.recognizers {
      let recognizer = Self.make(spec)
      recognizer.name = spec.id
      recognizer.isEnabled = spec.enabled
      recognizer.cancelsTouchesInView = spec.cancelsTouchesInView
      recognizer.delaysTouchesBegan = spec.delaysTouchesBegan
      recognizer.delaysTouchesEnded = spec.delaysTouchesEnded
      views[spec.view]!.addGestureRecognizer(recognizer)
      recognizers[spec.id] = recognizer
    }
    for spec in scene.recognizers {
      let recognizer = recognizers[spec.id]!
      for other in spec.requireToFail { recognizer.require(toFail: recognizers[other]!) }
      if !spec.simultaneousWith.isEmpty {
        let delegate = SimultaneityDelegate(spec.simultaneousWith.compactMap { recognizers[$0] })
        recognizer.delegate = delegate
        delegates.append(delegate)
      }
    }
    window.addGestureObserver { [unowned self] observation in
      switch observation {
      case .stateChanged(let recognizer, _, let to):
        self.line([
          ("t", self.time), ("kind", .string("recognizer")), ("id", .string(recognizer.name ?? "")),
          ("state", .string(to.name(isDiscrete: recognizer.isDiscrete))),
        ])
      case .actionSent(let recognizer):
        self.line([
          ("t", self.time), ("kind", .string("action")), ("id", .string(recognizer.name ?? "")),
          ("state", .string(recognizer.stateName)),
        ])
      }
    }
    window.addDeliveryObserver { [unowned self] delivery in
      // In touchesCancelled every touch is reported cancelled, as UIKit sets it when a recognizer
      // takes it (the touch itself goes on for the recognizers).
      let cancelled = delivery.method == .touchesCancelled
      let touches = delivery.touches.map { touch -> JSON in
        let p = touch.locationInWindow
        let phase = cancelled ? TouchPhase.cancelled : touch.phase
        return .object([
          ("slot", .number(Double(touch.identifier))), ("phase", .string(phase.description)),
          ("x", .raw(formatNumber(p.x, decimals: 3))), ("y", .raw(formatNumber(p.y, decimals: 3))),
          ("tapCount", .number(Double(touch.tapCount))),
        ])
      }
      self.line([
        ("t", self.time), ("kind", .string("touches")), ("method", .string(delivery.method.rawValue)),
        ("view", .string(delivery.view.identifier ?? "")),
        ("touches", .raw(JSON.array(touches).text(.compact))),
      ])
    }
  }

  private var time: JSON { .raw(formatNumber(scheduler.now, decimals: 6)) }

  /// One line: members separated by ", ", keys and values by ":".
  private func line(_ fields: [(String, JSON)]) {
    emit(JSON.object(fields).text(JSON.Layout(comma: ", ", colon: ":")))
  }

  private static func make(_ spec: TouchScene.RecognizerSpec) -> GestureRecognizer {
    switch spec.kind {
    case .tap:
      let tap = TapGestureRecognizer()
      if let taps = spec.taps { tap.numberOfTapsRequired = taps }
      if let touches = spec.touches { tap.numberOfTouchesRequired = touches }
      return tap
    case .longPress:
      let press = LongPressGestureRecognizer()
      if let taps = spec.taps { press.numberOfTapsRequired = taps }
      if let touches = spec.touches { press.numberOfTouchesRequired = touches }
      if let duration = spec.minimumPressDuration { press.minimumPressDuration = duration }
      if let movement = spec.allowableMovement { press.allowableMovement = movement }
      return press
    case .pan:
      let pan = PanGestureRecognizer()
      if let minimum = spec.minimumTouches { pan.minimumNumberOfTouches = minimum }
      if let maximum = spec.maximumTouches { pan.maximumNumberOfTouches = maximum }
      return pan
    case .swipe:
      let swipe = SwipeGestureRecognizer()
      if let direction = spec.direction { swipe.direction = direction }
      if let touches = spec.touches { swipe.numberOfTouchesRequired = touches }
      return swipe
    case .pinch:
      return PinchGestureRecognizer()
    case .rotation:
      return RotationGestureRecognizer()
    }
  }
}

/// A delegate that lets its recognizer recognize simultaneously with the listed ones.
final class SimultaneityDelegate: GestureRecognizerDelegate {
  private let others: [ObjectIdentifier]
  init(_ others: [GestureRecognizer]) { self.others = others.map(ObjectIdentifier.init) }
  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldRecognizeSimultaneouslyWith other: GestureRecognizer
  ) -> Bool {
    others.contains(ObjectIdentifier(other))
  }
}
