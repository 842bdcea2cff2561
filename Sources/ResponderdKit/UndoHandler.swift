import AccessibilityWatch
import EventTime
import KeySender
import Logging
import ResponderConfig
import ResponderCore

/// What the `undo` handler works with, set by `UndoComponent` as the service starts (the handler
/// is made before the components start).
public final class UndoParts {
  /// The focus on the accessibility bus.
  public var focus: (any AccessibilityFocusSource)?
  /// The chords' way to the compositor.
  public var keys: (any EditKeySender)?
  /// The question.
  public var question: (any UndoQuestionPresenter)?
  /// Why no shake may act now (the session locked or inactive, the proximity sensor near), nil
  /// when one may.
  public var gate: () -> String? = { nil }
  /// Called when a shake reached the handler while the focus is not followed (a shake sent with
  /// `responderctl send`, no accelerometer): the component starts following it.
  public var focusWanted: () -> Void = {}

  public init() {}
}

/// The built-in `undo` handler, at the end of the chain: a shake nobody took asks "Undo Typing"
/// (Cancel / Undo) when an editable text field has the focus, and Undo sends the focused
/// application its own undo (Ctrl+Z); after an undo, the next shake in the same field offers
/// "Redo Typing" (Ctrl+Shift+Z), as iOS does.
///
/// The rules (docs/shake-to-undo.md): no question and no key unless the focused accessible is
/// editable text (never a terminal, never a password field), the session is in front and
/// unlocked, and the proximity sensor does not read near. A second shake while the question is
/// open does nothing more. The chords are the only keys it sends, and only after Undo or Redo.
public final class UndoHandler: Handler {
  public let name = "undo"
  public let eventTypes: Set<EventType>
  /// Motion, while the feature is on and both a way to send keys and a question are available
  /// (otherwise a shake could do nothing, and the accelerometer is not opened for it).
  public var wantedEventTypes: Set<EventType> { canAct ? [.motion] : [] }

  /// How long the focused application has to say its role and states.
  public static let focusDeadline: Seconds = 0.3
  /// After the answer, how long the focus has to come back to the field (a notification popup
  /// that took it when tapped, as plasmashell's does, gives it back as it closes), and how often
  /// it is read meanwhile.
  public static let focusReturnTimeout: Seconds = 2
  static let focusReturnInterval: Seconds = 0.1

  /// What happened at the last shake, for `responderctl status` ("no question: a terminal has
  /// the focus"); empty before the first.
  public private(set) var lastOutcome = ""

  private let settings: UndoSettings
  private let parts: UndoParts
  private let scheduler: Scheduler
  private let logger: Logger
  private var state = State.idle
  /// The field where an undo was done: the next shake there offers a redo.
  private var undoneIn: AccessibleReference?
  /// Counts shakes, so that a late focus read of an earlier one is ignored.
  private var shakes = 0

  private enum State {
    case idle
    /// A began is being checked (the focus read).
    case checking
    /// A began was taken for this field; the question comes at its end.
    case armed(FocusedWidget)
    /// The question is open.
    case asking(FocusedWidget, UndoQuestionKind, expiry: ScheduledTimer)
    /// The answer was Undo or Redo: the field is read again and the chord sent.
    case sending
  }

  public init(settings: UndoSettings, parts: UndoParts, scheduler: Scheduler, logger: Logger) {
    self.settings = settings
    self.parts = parts
    self.scheduler = scheduler
    self.logger = logger
    eventTypes = settings.enabled ? [.motion] : []
  }

  /// Whether a shake could act now (the feature on, keys and the question available).
  public var canAct: Bool {
    settings.enabled && parts.keys?.state.isReady == true && parts.question?.unavailableReason == nil
  }

  /// Whether the question is open now.
  public var isAsking: Bool {
    if case .asking = state { return true }
    return false
  }

  public func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
    guard event.type == .motion, event.subtype == .motionShake, settings.enabled else { return decide(false) }
    switch phase ?? .began {
    case .began: began(decide)
    case .ended: ended(decide)
    case .cancelled:
      if case .armed = state {
        state = .idle
        return decide(true)
      }
      decide(isBusy)
    }
  }

  /// The question is open or its answer is being carried out: a shake does nothing more.
  private var isBusy: Bool {
    switch state {
    case .asking, .sending: true
    default: false
    }
  }

  private func refuse(_ why: String, _ decide: (Bool) -> Void) {
    if case .checking = state { state = .idle }
    note("no question: \(why)")
    decide(false)
  }

  private func note(_ outcome: String) {
    lastOutcome = outcome
    logger.info("undo: \(outcome)")
  }

  private func began(_ decide: @escaping (Bool) -> Void) {
    if isBusy { return decide(true) }
    if case .checking = state { return decide(false) }
    state = .idle
    if let why = parts.gate() { return refuse(why, decide) }
    guard let keys = parts.keys else { return refuse("the undo is not started", decide) }
    if case .unavailable(let reason) = keys.state { return refuse("no way to send keys: \(reason)", decide) }
    guard let question = parts.question else { return refuse("the undo is not started", decide) }
    if let why = question.unavailableReason { return refuse("nowhere to ask: \(why)", decide) }
    guard let focus = parts.focus else { return refuse("the undo is not started", decide) }
    if !focus.isFollowing { parts.focusWanted() }
    shakes += 1
    let shake = shakes
    state = .checking
    focus.readFocus(deadline: Self.focusDeadline) { [weak self] result in
      guard let self, self.shakes == shake, case .checking = self.state else { return decide(false) }
      switch result {
      case .failure(let error):
        self.refuse("\(error)", decide)
      case .success(let widget):
        if let why = Self.refusal(widget) { return self.refuse(why, decide) }
        self.state = .armed(widget)
        decide(true)
      }
    }
  }

  /// Why a shake may not act on `widget`, nil when it may: it must be focused editable text,
  /// never a terminal or a password field (whatever states they claim).
  public static func refusal(_ widget: FocusedWidget) -> String? {
    switch widget.role {
    case AccessibleRole.terminal:
      return "a terminal has the focus (Ctrl+Z would stop its job)"
    case AccessibleRole.passwordText:
      return "a password field has the focus"
    default:
      break
    }
    guard AccessibleRole.textRoles.contains(widget.role) else {
      return "the focused widget is not text (\(widget))"
    }
    guard widget.isEditable else { return "the focused text is not editable (\(widget))" }
    guard widget.isFocused else { return "the focused widget does not say it has the focus (\(widget))" }
    return nil
  }

  private func ended(_ decide: @escaping (Bool) -> Void) {
    if isBusy { return decide(true) }
    guard case .armed(let widget) = state else { return decide(false) }
    state = .idle
    if let why = parts.gate() { return refuse(why, decide) }
    guard let question = parts.question else { return refuse("the undo is not started", decide) }
    let kind: UndoQuestionKind = undoneIn == widget.reference ? .redo : .undo
    let expiry = scheduler.schedule(after: settings.questionTimeout) { [weak self] in self?.expired() }
    state = .asking(widget, kind, expiry: expiry)
    note("asking \"\(kind.summary)\" for \(widget.reference.application) (\(widget))")
    decide(true)
    question.ask(kind) { [weak self] answer in self?.answered(answer) }
  }

  private func expired() {
    guard case .asking(_, let kind, _) = state else { return }
    state = .idle
    parts.question?.close()
    let timeout = settings.questionTimeout
    let shown = timeout == timeout.rounded() ? "\(Int(timeout))" : formatSeconds(timeout, decimals: 1)
    note("\"\(kind.summary)\" expired unanswered after \(shown) s: nothing sent")
  }

  private func answered(_ answer: UndoAnswer) {
    guard case .asking(let widget, let kind, let expiry) = state else { return }
    expiry.cancel()
    switch answer {
    case .accepted:
      state = .sending
      carryOut(kind, in: widget)
    case .cancelled:
      state = .idle
      note("\"\(kind.summary)\": Cancel: nothing sent")
    case .dismissed:
      state = .idle
      note("\"\(kind.summary)\" closed without an answer: nothing sent")
    case .failed(let why):
      state = .idle
      note("\"\(kind.summary)\" could not be asked: \(why)")
    }
  }

  /// Reads the field again (it must still be, or be again within `focusReturnTimeout`, the
  /// focused editable text), then sends the chord.
  private func carryOut(
    _ kind: UndoQuestionKind, in widget: FocusedWidget, giveUpAt: Seconds? = nil
  ) {
    let giveUpAt = giveUpAt ?? scheduler.now + Self.focusReturnTimeout
    let chord: EditChord = kind == .undo ? .undo : .redo
    let finish: (String) -> Void = { [weak self] outcome in
      guard let self else { return }
      self.state = .idle
      self.note(outcome)
    }
    if let why = parts.gate() { return finish("\(kind.actionLabel) answered, but \(why): nothing sent") }
    guard let focus = parts.focus else { return finish("\(kind.actionLabel) answered: the undo is stopped") }
    focus.readFocus(deadline: Self.focusDeadline) { [weak self] result in
      guard let self else { return }
      let why: String? =
        switch result {
        case .failure(let error): "\(error)"
        case .success(let now):
          Self.refusal(now)
            ?? (now.reference == widget.reference ? nil : "the focus moved to another widget")
        }
      if let why {
        // Not (yet) back in the field: read again a moment later, until the timeout.
        guard self.scheduler.now + Self.focusReturnInterval <= giveUpAt else {
          return finish("\(kind.actionLabel) answered, but \(why): nothing sent")
        }
        self.scheduler.schedule(after: Self.focusReturnInterval) { [weak self] in
          self?.carryOut(kind, in: widget, giveUpAt: giveUpAt)
        }
        return
      }
      guard let keys = self.parts.keys else { return finish("\(kind.actionLabel) answered: no key sender") }
      let api = keys.state.description
      keys.send(chord) { [weak self] result in
        switch result {
        case .success:
          self?.undoneIn = chord == .undo ? widget.reference : nil
          finish("\(kind.actionLabel): sent \(chord) to \(widget.reference.application) through \(api)")
        case .failure(let error):
          finish("\(kind.actionLabel) answered, but the keys were not sent: \(error)")
        }
      }
    }
  }
}
