import EventTime
import InputCodes
import ResponderCore

/// A remote-control event made from keys: what it is, when (seconds on the input clock), and from
/// which device.
public struct RemoteControlEmission: Hashable, Sendable, CustomStringConvertible {
  public var subtype: EventSubtype
  public var timestamp: Seconds
  /// The device ("evdev:/dev/input/event3"), as given to `KeyInterpreter.deviceAdded`.
  public var source: String
  /// When the key behind it went down, for next and previous (a desktop acting on the same key
  /// acts at its press, they skip at the release); `timestamp` for the other keys.
  public var pressedAt: Seconds

  public init(subtype: EventSubtype, timestamp: Seconds, source: String, pressedAt: Seconds? = nil) {
    self.subtype = subtype
    self.timestamp = timestamp
    self.source = source
    self.pressedAt = pressedAt ?? timestamp
  }

  public var description: String { "\(subtype) at \(timestamp) from \(source)" }
}

/// The value of an EV_KEY event.
public enum KeyValue: Hashable, Sendable {
  case release
  case press
  /// Kernel auto-repeat while a key is held: never makes an event.
  case autoRepeat

  /// 0 release, 1 press, 2 auto-repeat; nil for anything else.
  public init?(_ value: Int32) {
    switch value {
    case 0: self = .release
    case 1: self = .press
    case 2: self = .autoRepeat
    default: return nil
    }
  }
}

/// Turns key presses and releases of media and headset keys into remote-control events, on the
/// scheduler's time (virtual in tests and replays): the key mapping, the click grammar of headset
/// keys, the hold rules of next/previous, seeking, the flush rule and unplugging
/// (docs/design.md#keys-and-the-click-grammar).
///
/// Key timestamps and the scheduler must share one clock (CLOCK_MONOTONIC live; the recording's
/// clock in a replay). Events made by a timer carry the timer's deadline as their timestamp.
/// An event handed over late (read after its own time) first fires the timers due by its time,
/// so that live input is interpreted exactly as its replay would be.
public final class KeyInterpreter {
  /// The state machine of one key of one device.
  private enum KeyMachine {
    case onPress(EventSubtype)
    case skip(SkipKey)
    case seek(SeekKey)
    case headset(ClickGrammar)
  }

  private struct KeyID: Hashable {
    var source: String
    var code: UInt16
  }

  public let settings: KeySettings
  private let scheduler: any Scheduler
  private let sink: (RemoteControlEmission) -> Void
  /// The key profiles of the devices present, by source.
  public private(set) var devices: [String: DeviceKeyProfile] = [:]
  private var machines: [KeyID: KeyMachine] = [:]

  /// `sink` receives every event made, synchronously, in order.
  public init(
    settings: KeySettings = .standard, scheduler: any Scheduler,
    sink: @escaping (RemoteControlEmission) -> Void
  ) {
    self.settings = settings
    self.scheduler = scheduler
    self.sink = sink
  }

  /// A device appeared; returns its key profile (whether it is ignored, which keys are mapped).
  @discardableResult
  public func deviceAdded(_ source: String, identity: InputDeviceIdentity) -> DeviceKeyProfile {
    let profile = settings.profile(for: identity)
    devices[source] = profile
    return profile
  }

  /// The device went away at `time` (unplugged): seeks it had begun end at `time`; presses in
  /// progress are dropped (their release never comes); click groups already released are still
  /// decided on time.
  public func deviceRemoved(_ source: String, at time: Seconds) {
    fireTimers(dueBy: time)
    devices[source] = nil
    let ids = machines.keys.filter { $0.source == source }.sorted { $0.code < $1.code }
    for id in ids {
      switch machines[id] {
      case .skip(let key): key.deviceGone(at: time)
      case .seek(let key): key.deviceGone(at: time)
      case .headset(let grammar):
        grammar.deviceGone(at: time)
        if grammar.releasedAt != nil { continue }
      case .onPress, nil: break
      }
      machines[id] = nil
    }
  }

  /// Hands over one raw event of a device; only EV_KEY events of mapped keys do anything.
  public func handle(_ event: RawInputEvent, from source: String) {
    guard event.type == 0x01, let value = KeyValue(event.value) else { return }
    key(event.code, value, at: event.time, from: source)
  }

  /// A key event of a device. Unmapped keys and auto-repeat do nothing at all.
  public func key(_ code: UInt16, _ value: KeyValue, at time: Seconds, from source: String) {
    let profile: DeviceKeyProfile
    if let known = devices[source] {
      profile = known
    } else {
      profile = deviceAdded(source, identity: InputDeviceIdentity())
    }
    guard value != .autoRepeat, let role = profile.role(of: code) else { return }
    fireTimers(dueBy: time)
    let id = KeyID(source: source, code: code)
    if value == .press { flushPendingGroups(except: id, at: time) }
    let machine: KeyMachine
    if let existing = machines[id] {
      machine = existing  // its state lives in the key's object: nothing to store back
    } else {
      machine = makeMachine(role, source: source)
      machines[id] = machine
    }
    switch (machine, value) {
    case (.onPress(let subtype), .press): emit(subtype, time, source)
    case (.onPress, _): break
    case (.skip(let key), .press): key.press(at: time)
    case (.skip(let key), _): key.release(at: time)
    case (.seek(let key), .press): key.press(at: time)
    case (.seek(let key), _): key.release(at: time)
    case (.headset(let grammar), .press): grammar.press(at: time)
    case (.headset(let grammar), _): grammar.release(at: time)
    }
  }

  /// Fires, in deadline order, the timers of the key machines due by `time` that the scheduler
  /// has not fired yet (the event reached us after its time).
  private func fireTimers(dueBy time: Seconds) {
    while true {
      let due = machines.values.compactMap { machine -> ScheduledTimer? in
        let timer: ScheduledTimer?
        switch machine {
        case .skip(let key): timer = key.pendingTimer
        case .headset(let grammar): timer = grammar.pendingTimer
        case .onPress, .seek: timer = nil
        }
        guard let timer, !timer.isCancelled, timer.deadline <= time else { return nil }
        return timer
      }
      guard let first = due.min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }) else {
        return
      }
      first.fire()
    }
  }

  /// Pressing another mapped key decides every released click group first, at that press.
  private func flushPendingGroups(except pressed: KeyID, at time: Seconds) {
    let pending = machines.compactMap { id, machine -> (Seconds, KeyID, ClickGrammar)? in
      guard id != pressed, case .headset(let grammar) = machine, let releasedAt = grammar.releasedAt
      else { return nil }
      return (releasedAt, id, grammar)
    }
    for (_, _, grammar) in pending.sorted(by: { ($0.0, $0.1.code) < ($1.0, $1.1.code) }) {
      grammar.flush(at: time)
    }
  }

  private func makeMachine(_ role: KeyRole, source: String) -> KeyMachine {
    let emit: (EventSubtype, Seconds) -> Void = { [weak self] subtype, time in
      self?.emit(subtype, time, source)
    }
    switch role {
    case .onPress(let subtype): return .onPress(subtype)
    case .skip(let direction):
      let emitPressed: (EventSubtype, Seconds, Seconds) -> Void = { [weak self] subtype, time, pressedAt in
        self?.emit(subtype, time, source, pressedAt: pressedAt)
      }
      return .skip(
        SkipKey(direction: direction, settings: settings, scheduler: scheduler, emit: emitPressed))
    case .seek(let direction): return .seek(SeekKey(direction: direction, emit: emit))
    case .headsetButton:
      return .headset(ClickGrammar(settings: settings, scheduler: scheduler, emit: emit))
    }
  }

  private func emit(_ subtype: EventSubtype, _ time: Seconds, _ source: String, pressedAt: Seconds? = nil) {
    sink(RemoteControlEmission(subtype: subtype, timestamp: time, source: source, pressedAt: pressedAt))
  }
}
