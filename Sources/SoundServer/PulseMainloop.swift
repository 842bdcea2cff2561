internal import CPulse
import EventLoop
import EventTime
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// libpulse's main loop abstraction (`pa_mainloop_api`) implemented over the service's `EventLoop`:
/// io events are epoll registrations, time events are the loop's timers (its epoll timeout), defer events
/// run after the current handler. No thread, and nothing wakes up while libpulse waits for nothing.
final class PulseMainloop {
  let loop: EventLoop
  private let scheduler: Scheduler
  /// The vtable handed to libpulse; lives as long as this object.
  let api: UnsafeMutablePointer<pa_mainloop_api>
  /// Events libpulse has not freed yet (freed ones leave this set; see `release`).
  fileprivate var live: Set<ObjectIdentifier> = []

  init(loop: EventLoop, scheduler: Scheduler? = nil) {
    self.loop = loop
    self.scheduler = scheduler ?? loop.scheduler
    api = .allocate(capacity: 1)
    api.initialize(to: pa_mainloop_api())
    api.pointee.userdata = Unmanaged.passUnretained(self).toOpaque()
    // Each event starts as libpulse asks when it is made (enabled, or due at `time`).
    api.pointee.io_new = { api, fd, flags, callback, userdata in
      guard let api, let callback else { return nil }
      let mainloop = PulseMainloop.from(api)
      return mainloop.retain(
        PulseIOEvent(
          mainloop: mainloop, fd: FileDescriptor(rawValue: fd), flags: flags, callback: callback,
          userdata: userdata))
    }
    api.pointee.io_enable = { pointer, flags in
      PulseIOEvent.from(pointer)?.enable(flags)
    }
    api.pointee.time_new = { api, time, callback, userdata in
      guard let api, let callback else { return nil }
      let mainloop = PulseMainloop.from(api)
      return mainloop.retain(
        PulseTimeEvent(mainloop: mainloop, time: time, callback: callback, userdata: userdata))
    }
    api.pointee.time_restart = { pointer, time in
      PulseTimeEvent.from(pointer)?.restart(time)
    }
    api.pointee.defer_new = { api, callback, userdata in
      guard let api, let callback else { return nil }
      let mainloop = PulseMainloop.from(api)
      return mainloop.retain(PulseDeferEvent(mainloop: mainloop, callback: callback, userdata: userdata))
    }
    api.pointee.defer_enable = { pointer, enabled in
      PulseDeferEvent.from(pointer)?.enable(enabled != 0)
    }
    // Freeing an event and being told of it are the same for the three kinds (one C signature).
    let freeEvent: @convention(c) (OpaquePointer?) -> Void = { pointer in
      PulseEventBase.object(pointer, as: PulseEventBase.self)?.free()
    }
    let setDestroy: @convention(c) (OpaquePointer?, pa_io_event_destroy_cb_t?) -> Void = { pointer, destroy in
      PulseEventBase.object(pointer, as: PulseEventBase.self)?.destroy = destroy
    }
    (api.pointee.io_free, api.pointee.time_free, api.pointee.defer_free) = (freeEvent, freeEvent, freeEvent)
    (api.pointee.io_set_destroy, api.pointee.time_set_destroy, api.pointee.defer_set_destroy) =
      (setDestroy, setDestroy, setDestroy)
    // Nobody runs this loop but the service: a quit request from libpulse has nothing to stop.
    api.pointee.quit = { _, _ in }
  }

  deinit {
    // The context (which frees its events) is gone before this object (SoundServerConnection).
    api.deinitialize(count: 1)
    api.deallocate()
  }

  /// Events libpulse holds now (for tests: none is left once the context is freed).
  var liveEventCount: Int { live.count }

  fileprivate static func from(_ api: UnsafeMutablePointer<pa_mainloop_api>) -> PulseMainloop {
    Unmanaged<PulseMainloop>.fromOpaque(api.pointee.userdata).takeUnretainedValue()
  }

  /// Hands `event` to libpulse: it stays alive until libpulse frees it.
  private func retain(_ event: PulseEventBase) -> OpaquePointer {
    live.insert(ObjectIdentifier(event))
    return OpaquePointer(Unmanaged.passRetained(event).toOpaque())
  }

  fileprivate func release(_ event: PulseEventBase) {
    live.remove(ObjectIdentifier(event))
    Unmanaged.passUnretained(event).release()
  }

  fileprivate var now: Seconds { scheduler.now }

  fileprivate func schedule(at deadline: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer {
    scheduler.schedule(at: deadline, action)
  }
}

/// What the three kinds of libpulse events share: the loop, and being freed once.
class PulseEventBase {
  fileprivate weak var mainloop: PulseMainloop?
  fileprivate let userdata: UnsafeMutableRawPointer?
  fileprivate private(set) var isFreed = false
  /// The callback libpulse set to be told the event is freed (`pa_io_event_destroy_cb_t` and the
  /// others: one C signature, the event as an opaque pointer).
  fileprivate var destroy: pa_io_event_destroy_cb_t?

  fileprivate init(mainloop: PulseMainloop, userdata: UnsafeMutableRawPointer?) {
    self.mainloop = mainloop
    self.userdata = userdata
  }

  /// The event as libpulse sees it (`pa_io_event *` and the others); `object(_:as:)` turns it back.
  fileprivate final var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

  /// Stops the event (its registration or timer).
  fileprivate func cancel() {}

  fileprivate final func free() {
    guard !isFreed else { return }
    isFreed = true
    cancel()
    guard let mainloop else { return }
    destroy?(mainloop.api, handle, userdata)
    mainloop.release(self)
  }

  fileprivate static func object<T: PulseEventBase>(_ pointer: OpaquePointer?, as type: T.Type) -> T? {
    guard let pointer else { return nil }
    let event = Unmanaged<PulseEventBase>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    return event as? T
  }
}

/// `pa_io_event`: a descriptor watched on the loop while libpulse wants some of its events. A
/// disabled event is not registered at all, so a hung-up socket cannot wake the loop.
final class PulseIOEvent: PulseEventBase {
  private let fd: FileDescriptor
  private let callback: pa_io_event_cb_t
  private var source: IOSource?

  fileprivate init(
    mainloop: PulseMainloop, fd: FileDescriptor, flags: pa_io_event_flags_t, callback: pa_io_event_cb_t,
    userdata: UnsafeMutableRawPointer?
  ) {
    self.fd = fd
    self.callback = callback
    super.init(mainloop: mainloop, userdata: userdata)
    enable(flags)
  }

  fileprivate static func from(_ pointer: OpaquePointer?) -> PulseIOEvent? { object(pointer, as: self) }

  fileprivate func enable(_ flags: pa_io_event_flags_t) {
    guard !isFreed, let mainloop else { return }
    var events: IOEvents = []
    if flags.rawValue & PA_IO_EVENT_INPUT.rawValue != 0 { events.insert(.readable) }
    if flags.rawValue & PA_IO_EVENT_OUTPUT.rawValue != 0 { events.insert(.writable) }
    if events.isEmpty {
      source?.remove()
      source = nil
    } else if let source, source.isRegistered {
      try? source.setEvents(events)
    } else {
      source = try? mainloop.loop.register(fd: fd, events: events) { [weak self] ready in
        self?.dispatch(ready)
      }
    }
  }

  private func dispatch(_ ready: IOEvents) {
    guard !isFreed, let mainloop else { return }
    var flags: UInt32 = 0
    if ready.contains(.readable) { flags |= PA_IO_EVENT_INPUT.rawValue }
    if ready.contains(.writable) { flags |= PA_IO_EVENT_OUTPUT.rawValue }
    if ready.contains(.hangup) { flags |= PA_IO_EVENT_HANGUP.rawValue }
    if ready.contains(.error) { flags |= PA_IO_EVENT_ERROR.rawValue }
    withExtendedLifetime(self) {
      callback(
        mainloop.api, handle, fd.rawValue,
        pa_io_event_flags_t(rawValue: flags), userdata)
    }
  }

  fileprivate override func cancel() {
    source?.remove()
    source = nil
  }
}

/// `pa_time_event`: one of the loop's timers. libpulse gives times on the monotonic clock (flagged
/// with `PA_TIMEVAL_RTCLOCK`) or the wall clock; both become a monotonic deadline.
final class PulseTimeEvent: PulseEventBase {
  private let callback: pa_time_event_cb_t
  private var timer: ScheduledTimer?
  private var time = timeval()

  fileprivate init(
    mainloop: PulseMainloop, time: UnsafePointer<timeval>?, callback: pa_time_event_cb_t,
    userdata: UnsafeMutableRawPointer?
  ) {
    self.callback = callback
    super.init(mainloop: mainloop, userdata: userdata)
    restart(time)
  }

  fileprivate static func from(_ pointer: OpaquePointer?) -> PulseTimeEvent? { object(pointer, as: self) }

  fileprivate func restart(_ pointer: UnsafePointer<timeval>?) {
    timer?.cancel()
    timer = nil
    guard !isFreed, let mainloop, let pointer else { return }
    time = pointer.pointee
    timer = mainloop.schedule(at: Self.monotonicDeadline(of: time, now: mainloop.now)) { [weak self] in
      self?.fire()
    }
  }

  /// The monotonic deadline of a libpulse time.
  static func monotonicDeadline(of time: timeval, now: Seconds) -> Seconds {
    let flag = Int(CPULSE_TIMEVAL_RTCLOCK)
    if Int(time.tv_usec) & flag != 0 {
      return Seconds(time.tv_sec) + Seconds(Int(time.tv_usec) & ~flag) / 1_000_000
    }
    var wall = timeval()
    gettimeofday(&wall, nil)
    let left =
      Seconds(time.tv_sec - wall.tv_sec) + Seconds(Int(time.tv_usec) - Int(wall.tv_usec)) / 1_000_000
    return now + max(0, left)
  }

  private func fire() {
    timer = nil
    guard !isFreed, let mainloop else { return }
    var time = self.time
    withExtendedLifetime(self) {
      callback(mainloop.api, handle, &time, userdata)
    }
  }

  fileprivate override func cancel() {
    timer?.cancel()
    timer = nil
  }
}

/// `pa_defer_event`: runs after the current handler while enabled. One that stays enabled runs
/// again through a timer due now, so that descriptors are served between its runs.
final class PulseDeferEvent: PulseEventBase {
  private let callback: pa_defer_event_cb_t
  private var enabled = false
  private var queued = false
  private var again: ScheduledTimer?

  fileprivate init(mainloop: PulseMainloop, callback: pa_defer_event_cb_t, userdata: UnsafeMutableRawPointer?)
  {
    self.callback = callback
    super.init(mainloop: mainloop, userdata: userdata)
    enable(true)
  }

  fileprivate static func from(_ pointer: OpaquePointer?) -> PulseDeferEvent? { object(pointer, as: self) }

  fileprivate func enable(_ enabled: Bool) {
    self.enabled = enabled
    guard enabled, !queued, !isFreed, let mainloop else { return }
    queued = true
    mainloop.loop.runSoon { [weak self] in self?.run() }
  }

  private func run() {
    queued = false
    again = nil
    guard enabled, !isFreed, let mainloop else { return }
    withExtendedLifetime(self) {
      callback(mainloop.api, handle, userdata)
    }
    guard enabled, !isFreed, !queued else { return }
    queued = true
    again = mainloop.schedule(at: mainloop.now) { [weak self] in self?.run() }
  }

  fileprivate override func cancel() {
    enabled = false
    again?.cancel()
    again = nil
  }
}
