internal import CPulse
import EventLoop
import EventTime
import InputCodes
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// A client of the user's sound server (PulseAudio, or PipeWire's pipewire-pulse) through
/// libpulse, on the service's event loop: it follows the sinks and the default sink, and changes
/// a sink's volume and mute for the volume keys.
///
/// A server that is absent or goes away costs one log line; volume keys then do nothing. It
/// connects again when the server's socket appears (inotify on its directory: nothing wakes up
/// meanwhile) and at the next key press.
public final class SoundServerConnection {
  /// Where the connection stands.
  public enum State: Sendable, Equatable {
    case disconnected, connecting, ready
  }

  /// A change the server reported (its own subscription event) or a change of the connection.
  public enum Change: Sendable, Equatable {
    /// A sink changed (volume, mute, properties), appeared or went away; `sink` is nil when it
    /// went away.
    case sink(index: UInt32, sink: Sink?)
    /// The server's default sink changed.
    case defaultSink(String?)
    /// The connection's state changed.
    case state(State)
    /// The server's own change event for a sink (`PA_SUBSCRIPTION_EVENT_SINK`), as it arrives,
    /// before the sink is read again (`.sink` follows).
    case sinkEvent(index: UInt32)
  }

  /// The volume step of the up and down keys, in percent of 100 %.
  public var step: Double
  private let mainloop: PulseMainloop
  private var logger: Logger
  private let scheduler: Scheduler
  private let applicationName: String
  /// The server's address as libpulse takes it (`unix:/run/user/1000/pulse/native`); nil: libpulse's
  /// default (`$PULSE_SERVER`, client.conf, the runtime directory's socket).
  public let server: String?
  private var context: OpaquePointer?
  public private(set) var state = State.disconnected
  /// The sinks by index, and the default sink's name, once ready.
  public private(set) var sinks: [UInt32: Sink] = [:]
  public private(set) var defaultSinkName: String?
  /// The server's name and version ("pulseaudio 16.1", "PulseAudio (on PipeWire 1.4.2) 15.0.0").
  public private(set) var serverName: String?
  private var loaded = false
  private var pendingLoads = 0
  private var waiting: [() -> Void] = []
  private var announcedAbsence = false
  private var wasReady = false
  private var stopped = true
  private var observers: [(Change) -> Void] = []
  private var watcher: SocketWatcher?
  private var operations: [ObjectIdentifier: Operation] = [:]
  /// Presses accepted and not answered yet, with when each was made.
  private var unansweredSince: [Int: Seconds] = [:]
  private var pressCounter = 0
  /// The press kept while the server does not answer, and how many were dropped meanwhile.
  private var kept: (key: VolumeKey, location: InputDeviceLocation?, completion: (VolumeOutcome) -> Void)?
  private var droppedPresses = 0

  /// A connection on `loop` to `server` (nil: the user's default server); `start()` connects.
  /// `step` is the up/down step in percent.
  public init(
    loop: EventLoop, scheduler: Scheduler? = nil, server: String? = nil, step: Double = 5,
    applicationName: String = "responderd", logger: Logger
  ) {
    self.server = server
    mainloop = PulseMainloop(loop: loop, scheduler: scheduler)
    self.scheduler = scheduler ?? loop.scheduler
    self.step = step
    self.applicationName = applicationName
    self.logger = logger
  }

  deinit { stop() }

  /// Calls `observer` with every later change.
  public func addObserver(_ observer: @escaping (Change) -> Void) { observers.append(observer) }

  /// The socket this connection goes to: the server's when it is a unix path, else the default.
  public var socketPath: String? {
    guard let server else { return Self.defaultSocketPath }
    return Self.unixPath(of: server)
  }

  /// The socket libpulse connects to by default: `$PULSE_SERVER` when it is a unix path, else
  /// `$PULSE_RUNTIME_PATH/native`, else `$XDG_RUNTIME_DIR/pulse/native`; nil when none is known.
  public static var defaultSocketPath: String? {
    if let server = environment("PULSE_SERVER") { return unixPath(of: server) }
    if let runtime = environment("PULSE_RUNTIME_PATH") { return runtime + "/native" }
    if let runtime = environment("XDG_RUNTIME_DIR") { return runtime + "/pulse/native" }
    return nil
  }

  /// The path of a `unix:/path` or `/path` server address; nil for other addresses.
  static func unixPath(of server: String) -> String? {
    var path = server
    if path.hasPrefix("unix:") { path.removeFirst(5) }
    return path.hasPrefix("/") ? path : nil
  }

  private static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let string = String(cString: value)
    return string.isEmpty ? nil : string
  }

  /// Connects, and keeps connecting again whenever the server comes back.
  public func start() {
    guard stopped else { return }
    stopped = false
    connect()
  }

  /// Disconnects and stops watching for the server. Presses waiting for the connection end with
  /// `.noServer`.
  public func stop() {
    guard !stopped else { return }
    stopped = true
    watcher?.stop()
    watcher = nil
    tearDown()
    setState(.disconnected)
  }

  // MARK: Volume keys

  /// Acts on a volume key: up and down move the sink's volume by `step` (up also unmutes; never
  /// above 100 % by a key, never below 0), mute toggles. The sink is the one `location` matches
  /// (a USB headset's own card) or else the default sink. `completion` runs on the loop once the
  /// server has answered.
  ///
  /// A server that has left a change unanswered for more than `answerLimit` seconds (stopped,
  /// frozen) does not get every press made meanwhile when it resumes: one press is kept and
  /// applied once it has answered, the others end as `.dropped` (one log line says so, one more
  /// when it answers again).
  public func press(
    _ key: VolumeKey, location: InputDeviceLocation? = nil,
    completion: @escaping (VolumeOutcome) -> Void = { _ in }
  ) {
    guard !stopped else { return completion(.noServer) }
    if let oldest = unansweredSince.values.min(), scheduler.now - oldest > Self.answerLimit {
      guard kept != nil else {
        kept = (key, location, completion)
        return
      }
      droppedPresses += 1
      if droppedPresses == 1 {
        logger.notice(
          "sound: the sound server has not answered a volume change within \(Int((Self.answerLimit * 1000).rounded())) ms (the oldest was sent \(Int(((scheduler.now - oldest) * 1000).rounded())) ms ago): volume keys are dropped until it does (the first one since is kept for then)"
        )
      }
      return completion(.dropped(reason: "the sound server has not answered the previous change"))
    }
    pressCounter += 1
    let id = pressCounter
    unansweredSince[id] = scheduler.now
    accept(key, location: location) { [weak self] outcome in
      self?.unansweredSince[id] = nil
      completion(outcome)
      self?.answered()
    }
  }

  /// How long a change may stay unanswered before the server is taken as not answering (a
  /// sound server on the same machine answers within milliseconds).
  public static let answerLimit: Seconds = 0.1

  /// Every change answered: the kept press goes now.
  private func answered() {
    guard unansweredSince.isEmpty else { return }
    if droppedPresses > 0 {
      logger.notice(
        "sound: the sound server answers again: \(droppedPresses) volume key press\(droppedPresses == 1 ? " was" : "es were") dropped meanwhile"
      )
      droppedPresses = 0
    }
    guard let next = kept else { return }
    kept = nil
    press(next.key, location: next.location, completion: next.completion)
  }

  private func accept(
    _ key: VolumeKey, location: InputDeviceLocation?, completion: @escaping (VolumeOutcome) -> Void
  ) {
    switch state {
    case .ready where loaded:
      perform(key, location: location, completion: completion)
    case .ready, .connecting:
      waiting.append { [weak self] in
        guard let self else { return }
        if self.state == .ready {
          self.perform(key, location: location, completion: completion)
        } else {
          completion(.noServer)
        }
      }
    case .disconnected:
      // Retry at the key press: a server the socket watch cannot see (another address) counts too.
      waiting.append { [weak self] in
        guard let self, self.state == .ready else { return completion(.noServer) }
        self.perform(key, location: location, completion: completion)
      }
      connect()
    }
  }

  /// The sink a key acts on: the one `location` matches, else the default sink.
  public func targetSink(for location: InputDeviceLocation?) -> (sink: Sink, matchedBy: String?)? {
    if let location {
      for sink in sinks.values.sorted(by: { $0.index < $1.index }) {
        if let reason = location.reason(toMatch: sink) { return (sink, reason) }
      }
    }
    if let defaultSinkName, let sink = sinks.values.first(where: { $0.name == defaultSinkName }) {
      return (sink, nil)
    }
    return sinks.values.min(by: { $0.index < $1.index }).map { ($0, nil) }
  }

  private func perform(
    _ key: VolumeKey, location: InputDeviceLocation?, completion: @escaping (VolumeOutcome) -> Void
  ) {
    guard let context, let (sink, matchedBy) = targetSink(for: location) else {
      return completion(context == nil ? .noServer : .noSink)
    }
    let before = VolumeOutcome.Level(percent: sink.volumePercent, isMuted: sink.isMuted)
    var changed = sink
    switch key {
    case .mute:
      changed.isMuted.toggle()
    case .up, .down:
      let current = sink.channelVolumes.max() ?? 0
      let delta = UInt32((step / 100 * Double(Sink.normVolume)).rounded())
      let target: UInt32
      if key == .up {
        target = max(current, min(current + delta, Sink.normVolume))
        changed.isMuted = false
      } else {
        target = current > delta ? current - delta : 0
      }
      changed.channelVolumes = Self.scaled(sink.channelVolumes, to: target)
    }
    let after = VolumeOutcome.Level(percent: changed.volumePercent, isMuted: changed.isMuted)
    // Seen at once by the next press (a fast second press builds on this one); the server's change
    // event confirms it.
    sinks[sink.index] = changed
    var calls = 0
    var failure: String?
    let finish: (Bool) -> Void = { [weak self] success in
      calls -= 1
      if !success, failure == nil {
        failure = self?.lastError ?? "refused"
      }
      guard calls == 0 else { return }
      if let failure {
        // Refused: what the server has is what it had (unless it reported a change meanwhile).
        if self?.sinks[sink.index] == changed { self?.sinks[sink.index] = sink }
        completion(.failed(sink: sink.name, reason: failure))
      } else {
        completion(.changed(sink: sink.name, matchedBy: matchedBy, before: before, after: after))
      }
    }
    if changed.channelVolumes != sink.channelVolumes {
      var volume = pa_cvolume()
      volume.channels = UInt8(changed.channelVolumes.count)
      withUnsafeMutableBytes(of: &volume.values) { raw in
        let values = raw.bindMemory(to: pa_volume_t.self)
        for (channel, value) in changed.channelVolumes.enumerated() { values[channel] = value }
      }
      calls += 1
      let operation = track(finish)
      operation.adopt(
        rsp_pa_context_set_sink_volume_by_index(
          context, sink.index, &volume, Self.successCallback, operation.userdata))
    }
    if changed.isMuted != sink.isMuted {
      calls += 1
      let operation = track(finish)
      operation.adopt(
        rsp_pa_context_set_sink_mute_by_index(
          context, sink.index, changed.isMuted ? 1 : 0, Self.successCallback, operation.userdata))
    }
    if calls == 0 {
      completion(.changed(sink: sink.name, matchedBy: matchedBy, before: before, after: after))
    }
  }

  /// `volumes` scaled so that the loudest channel is `target` (the balance kept).
  static func scaled(_ volumes: [UInt32], to target: UInt32) -> [UInt32] {
    guard let loudest = volumes.max(), loudest > 0 else { return volumes.map { _ in target } }
    return volumes.map { UInt32((Double($0) * Double(target) / Double(loudest)).rounded()) }
  }

  private var lastError: String? {
    guard let context else { return nil }
    return String(cString: rsp_pa_strerror(rsp_pa_context_errno(context)))
  }

  // MARK: Connection

  private func connect() {
    guard !stopped, context == nil else { return }
    guard rsp_pulse_load() != 0 else {
      if !announcedAbsence {
        let why = rsp_pulse_load_error().map { String(cString: $0) } ?? "not found"
        logger.notice("sound: libpulse cannot be loaded (\(why)); volume keys do nothing")
        announcedAbsence = true
      }
      runWaiting()
      return
    }
    let proplist = rsp_pa_proplist_new()
    defer { rsp_pa_proplist_free(proplist) }
    rsp_pa_proplist_sets(proplist, PA_PROP_APPLICATION_NAME, applicationName)
    rsp_pa_proplist_sets(proplist, PA_PROP_APPLICATION_ID, "org.responderd.Daemon1")
    guard let context = rsp_pa_context_new_with_proplist(mainloop.api, applicationName, proplist) else {
      logger.error("sound: cannot create a libpulse context")
      return
    }
    self.context = context
    rsp_pa_context_set_state_callback(context, Self.stateCallback, Unmanaged.passUnretained(self).toOpaque())
    setState(.connecting)
    if rsp_pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0, self.context == context {
      failed(reason: lastError ?? "cannot connect")
    }
  }

  private static let stateCallback: pa_context_notify_cb_t = { context, userdata in
    guard let context, let userdata else { return }
    let connection = Unmanaged<SoundServerConnection>.fromOpaque(userdata).takeUnretainedValue()
    guard connection.context == context else { return }
    let state = rsp_pa_context_get_state(context)
    if state == PA_CONTEXT_READY {
      connection.connected()
    } else if cpulse_context_is_final(state) != 0 {
      connection.failed(reason: connection.lastError ?? "connection ended")
    }
  }

  private func connected() {
    guard let context else { return }
    setState(.ready)
    announcedAbsence = false
    wasReady = true
    rsp_pa_context_set_subscribe_callback(
      context, Self.subscribeCallback, Unmanaged.passUnretained(self).toOpaque())
    let mask = pa_subscription_mask_t(
      PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue)
    rsp_pa_operation_unref(rsp_pa_context_subscribe(context, mask, nil, nil))
    loaded = false
    pendingLoads = 2
    loadServerInfo(initial: true)
    let operation = rsp_pa_context_get_sink_info_list(
      context, Self.sinkListCallback, Unmanaged.passUnretained(self).toOpaque())
    if let operation { rsp_pa_operation_unref(operation) }
  }

  private func initialLoadDone() {
    pendingLoads -= 1
    guard pendingLoads == 0, !loaded else { return }
    loaded = true
    logger.info(
      "sound: connected to \(serverName ?? "the sound server") (\(sinks.count) sink\(sinks.count == 1 ? "" : "s"), default '\(defaultSinkName ?? "none")')"
    )
    runWaiting()
  }

  private func runWaiting() {
    let blocks = waiting
    waiting.removeAll()
    for block in blocks { block() }
  }

  private func failed(reason: String) {
    let lost = wasReady
    wasReady = false
    // Not from inside libpulse's own callback: the context is freed on the next turn.
    let context = self.context
    self.context = nil
    if let context {
      rsp_pa_context_set_state_callback(context, nil, nil)
      rsp_pa_context_set_subscribe_callback(context, nil, nil)
      // The main loop stays until then: freeing the context frees its events through it.
      mainloop.loop.runSoon { [mainloop] in
        rsp_pa_context_disconnect(context)
        rsp_pa_context_unref(context)
        withExtendedLifetime(mainloop) {}
      }
    }
    dropOperations()
    let hadSinks = !sinks.isEmpty
    sinks.removeAll()
    defaultSinkName = nil
    loaded = false
    if hadSinks { notify(.defaultSink(nil)) }
    setState(.disconnected)
    if lost {
      logger.notice("sound: lost the sound server (\(reason)); volume keys do nothing until it is back")
      announcedAbsence = true
    } else if !announcedAbsence {
      logger.notice(
        "sound: no sound server at \(server ?? socketPath ?? "the default address") (\(reason)); volume keys do nothing until one starts"
      )
      announcedAbsence = true
    } else {
      logger.debug("sound: still no sound server (\(reason))")
    }
    runWaiting()
    watchForServer()
  }

  private func tearDown() {
    if let context {
      rsp_pa_context_set_state_callback(context, nil, nil)
      rsp_pa_context_set_subscribe_callback(context, nil, nil)
      rsp_pa_context_disconnect(context)
      rsp_pa_context_unref(context)
    }
    context = nil
    dropOperations()
    sinks.removeAll()
    defaultSinkName = nil
    loaded = false
    wasReady = false
    runWaiting()
  }

  private func watchForServer() {
    guard !stopped, let path = socketPath else { return }
    if watcher == nil {
      watcher = SocketWatcher(socketPath: path, loop: mainloop.loop, scheduler: scheduler) { [weak self] in
        guard let self, self.context == nil else { return }
        self.connect()
      }
    }
    watcher?.start()
  }

  private func setState(_ new: State) {
    guard state != new else { return }
    state = new
    if new == .ready { watcher?.stop() }
    notify(.state(new))
  }

  private func notify(_ change: Change) {
    for observer in observers { observer(change) }
  }

  // MARK: Server and sink information

  private func loadServerInfo(initial: Bool) {
    guard let context else { return }
    let userdata = Unmanaged.passUnretained(self).toOpaque()
    let operation = rsp_pa_context_get_server_info(
      context, initial ? Self.initialServerInfoCallback : Self.serverInfoCallback, userdata)
    if let operation { rsp_pa_operation_unref(operation) }
  }

  private static let initialServerInfoCallback: pa_server_info_cb_t = { _, info, userdata in
    guard let userdata else { return }
    let connection = Unmanaged<SoundServerConnection>.fromOpaque(userdata).takeUnretainedValue()
    connection.serverInfo(info)
    connection.initialLoadDone()
  }

  private static let serverInfoCallback: pa_server_info_cb_t = { _, info, userdata in
    guard let userdata else { return }
    Unmanaged<SoundServerConnection>.fromOpaque(userdata).takeUnretainedValue().serverInfo(info)
  }

  private func serverInfo(_ info: UnsafePointer<pa_server_info>?) {
    guard let info else { return }
    let name = info.pointee.server_name.map { String(cString: $0) } ?? "sound server"
    let version = info.pointee.server_version.map { String(cString: $0) } ?? ""
    serverName = version.isEmpty ? name : "\(name) \(version)"
    let newDefault = info.pointee.default_sink_name.map { String(cString: $0) }
    if newDefault != defaultSinkName {
      defaultSinkName = newDefault
      if loaded { notify(.defaultSink(newDefault)) }
    }
  }

  private static let sinkListCallback: pa_sink_info_cb_t = { _, info, eol, userdata in
    guard let userdata else { return }
    let connection = Unmanaged<SoundServerConnection>.fromOpaque(userdata).takeUnretainedValue()
    if eol != 0 {
      connection.initialLoadDone()
    } else if let info {
      connection.store(SoundServerConnection.sink(from: info))
    }
  }

  private static let sinkCallback: pa_sink_info_cb_t = { _, info, eol, userdata in
    guard let userdata, eol == 0, let info else { return }
    let connection = Unmanaged<SoundServerConnection>.fromOpaque(userdata).takeUnretainedValue()
    let sink = SoundServerConnection.sink(from: info)
    connection.store(sink)
    connection.notify(.sink(index: sink.index, sink: sink))
  }

  private func store(_ sink: Sink) { sinks[sink.index] = sink }

  static func sink(from info: UnsafePointer<pa_sink_info>) -> Sink {
    let value = info.pointee
    var properties: [String: String] = [:]
    if let proplist = value.proplist {
      var state: UnsafeMutableRawPointer?
      while let key = rsp_pa_proplist_iterate(proplist, &state) {
        if let text = rsp_pa_proplist_gets(proplist, key) {
          properties[String(cString: key)] = String(cString: text)
        }
      }
    }
    var volume = value.volume
    let channels = Int(volume.channels)
    let volumes = withUnsafeBytes(of: &volume.values) {
      Array($0.bindMemory(to: pa_volume_t.self).prefix(channels))
    }
    return Sink(
      index: value.index, name: value.name.map { String(cString: $0) } ?? "",
      description: value.description.map { String(cString: $0) } ?? "", properties: properties,
      channelVolumes: volumes, isMuted: value.mute != 0)
  }

  private static let subscribeCallback: pa_context_subscribe_cb_t = { context, event, index, userdata in
    guard let context, let userdata else { return }
    let connection = Unmanaged<SoundServerConnection>.fromOpaque(userdata).takeUnretainedValue()
    let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
    let type = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
    if facility == PA_SUBSCRIPTION_EVENT_SINK.rawValue {
      connection.notify(.sinkEvent(index: index))
      if type == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue {
        connection.sinks[index] = nil
        connection.notify(.sink(index: index, sink: nil))
      } else {
        let operation = rsp_pa_context_get_sink_info_by_index(
          context, index, SoundServerConnection.sinkCallback, userdata)
        if let operation { rsp_pa_operation_unref(operation) }
      }
    } else if facility == PA_SUBSCRIPTION_EVENT_SERVER.rawValue {
      connection.loadServerInfo(initial: false)
    }
  }

  // MARK: Operations with a completion

  /// A call waiting for the server's answer; freed when it comes or when the connection ends
  /// (libpulse then cancels the call without calling back).
  private final class Operation {
    let completion: (Bool) -> Void
    weak var owner: SoundServerConnection?
    init(completion: @escaping (Bool) -> Void, owner: SoundServerConnection) {
      self.completion = completion
      self.owner = owner
    }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    func adopt(_ operation: OpaquePointer?) {
      guard let operation else {
        owner?.operations[ObjectIdentifier(self)] = nil
        completion(false)
        return
      }
      rsp_pa_operation_unref(operation)
    }
  }

  private func track(_ completion: @escaping (Bool) -> Void) -> Operation {
    let operation = Operation(completion: completion, owner: self)
    operations[ObjectIdentifier(operation)] = operation
    return operation
  }

  private func dropOperations() {
    let dropped = operations.values
    operations.removeAll()
    for operation in dropped { operation.completion(false) }
  }

  private static let successCallback: pa_context_success_cb_t = { _, success, userdata in
    guard let userdata else { return }
    let operation = Unmanaged<Operation>.fromOpaque(userdata).takeUnretainedValue()
    guard let owner = operation.owner,
      owner.operations.removeValue(forKey: ObjectIdentifier(operation)) != nil
    else { return }
    operation.completion(success != 0)
  }
}
