import DBus
import EventLoop
import EventTime
import Logging
import Motion
import ResponderCore
import ResponderInterfaces
import SystemCalls
import SystemPackage

/// Motion data for applications (`org.responderd.Motion1` on `/org/responderd/Daemon1`), as Core
/// Motion gives them: accelerometer and device-motion samples on a `SOCK_SEQPACKET` socket per
/// stream, at the interval each client asks for, and the device orientation as a property.
///
/// One capture serves everyone: the sensor runs at the fastest rate a stream asks for (and the
/// configured rate while shakes are wanted); each stream gets its own interval by decimation. A
/// stream ends when its client closes its socket, stops it, or leaves the bus; with no stream, no
/// orientation watcher and no shake responder the sensor is closed. Only the daemon's user is
/// answered, and a stream can be stopped only by the connection that started it.
public final class MotionAPI: ServiceComponent {
  public let componentName = "motion-api"

  /// The kind of samples a stream carries.
  public enum StreamKind: String, Sendable {
    case accelerometer
    case deviceMotion
  }

  /// One client's stream.
  final class Stream {
    let id: UInt32
    let kind: StreamKind
    let busName: String
    let interval: Seconds
    let fd: FileDescriptor
    var source: IOSource?
    var nextDue: Seconds?
    var sent = 0
    var dropped = 0
    /// Samples dropped since the client last read (its socket full), and when that began.
    var droppedInSpell = 0
    init(id: UInt32, kind: StreamKind, busName: String, interval: Seconds, fd: FileDescriptor) {
      self.id = id
      self.kind = kind
      self.busName = busName
      self.interval = interval
      self.fd = fd
    }

    /// Whether the sample at `t` goes to this stream: one per interval, on average exactly the
    /// interval apart, the sensor's period taken as tolerance.
    func isDue(_ t: Seconds, period: Seconds) -> Bool {
      guard let next = nextDue else {
        nextDue = t + interval
        return true
      }
      if t + min(period, interval) / 2 < next { return false }
      // Fell behind (a gap in the samples): start again from this one.
      nextDue = next + interval <= t ? t + interval : next + interval
      return true
    }
  }

  private var connection: (any MessageBus)?
  private var object: DBusExportedObject?
  private let loop: EventLoop
  private let logger: Logger
  private var streams: [UInt32: Stream] = [:]
  private var nextID: UInt32 = 1
  /// Orientation notifications asked for, by connection.
  private var orientationWatchers: [String: Int] = [:]
  private var watches: [String: DBusSubscription] = [:]
  private var estimator = OrientationEstimator()
  private var orientationObservers: [(DeviceOrientation) -> Void] = []
  private var lastSensorInterval: Seconds = 0
  /// The time of the last sample (to measure the sensor's actual period).
  private var lastSampleTime: Seconds?
  /// The accelerometer the availability properties last told of (nil: none), once told.
  private var publishedAvailability: Availability??
  private var availabilityCheckPending = false

  /// What the availability properties say.
  private struct Availability: Equatable {
    var name: String
    var rates: [Double]
  }

  private let motion: MotionComponent?
  private let bus: BusComponent?

  /// The motion API of `motion`'s accelerometer (its streams recorded in `motion.interest`),
  /// served on `bus`, its streams' sockets watched on `loop`; without `motion` or `bus`, it
  /// serves nothing.
  public init(motion: MotionComponent?, bus: BusComponent?, loop: EventLoop, logger: Logger) {
    self.motion = motion
    self.bus = bus
    self.loop = loop
    self.logger = logger
  }

  public var dependencies: [ServiceComponent] { ([motion, bus] as [ServiceComponent?]).compactMap { $0 } }

  /// The streams served now, by id.
  public var streamCount: Int { streams.count }
  /// The device orientation now (unknown while the sensor is closed).
  public var deviceOrientation: DeviceOrientation { estimator.orientation }

  /// Calls `observer` with each new device orientation (each `DeviceOrientation` change; unknown
  /// when the sensor stays closed).
  public func addOrientationObserver(_ observer: @escaping (DeviceOrientation) -> Void) {
    orientationObservers.append(observer)
  }

  public func start() throws {
    if let shake = motion?.shake {
      // After the shake detector's observer: its gravity estimate includes the sample.
      shake.input.addSampleObserver { [weak self, detector = shake.detector] sample in
        self?.deliver(sample, gravity: detector.gravity)
      }
      shake.input.addSensorObserver { [weak self] change in
        switch change {
        case .closed: self?.sensorClosed()
        // The same sensor at another rate: gravity, orientation and decimation go on; only the
        // measured period starts afresh.
        case .reconfigured: self?.lastSampleTime = nil
        case .opened: break
        }
      }
    }
    guard let bus else { return }
    // An accelerometer coming or going changes the availability properties: watched (udev, no
    // wake-up while nothing changes) while the interface is served.
    motion?.shake?.input.onAvailabilityChange = { [weak self] in self?.availabilityMayHaveChanged() }
    bus.withConnection { [weak self] connection in
      self?.attach(connection)
      connection.addObserver { [weak self] event in
        guard case .connected = event else { return }
        // Streams belong to connections of the bus we had before: all gone.
        self?.releaseAll(reason: "responderd reconnected to the bus")
      }
    }
  }

  public func stop() {
    motion?.shake?.input.onAvailabilityChange = nil
    releaseAll(reason: "responderd stops")
    object?.remove(interface: MotionBusAPI.interface)
  }

  private func attach(_ connection: any MessageBus) {
    self.connection = connection
    do {
      if let object = connection.exportedObject(at: ResponderBusAPI.daemonPath) {
        try object.add(interface())
        self.object = object
      } else {
        object = try connection.export(path: ResponderBusAPI.daemonPath, interfaces: [interface()])
      }
    } catch {
      logger.error("motion-api: cannot export \(MotionBusAPI.interface): \(error)")
    }
  }

  // MARK: The interface

  /// The interface's descriptor, with its documentation (also written as its interface file).
  func interface() -> DBusInterface {
    DBusInterface(
      MotionBusAPI.interface,
      methods: [
        .replyLater(
          "StartAccelerometerUpdates", in: "d", out: "hu", inNames: ["interval"], outNames: ["samples", "id"]
        ) { [weak self] call in self?.startUpdates(call, kind: .accelerometer) }
        .documented(
          "Starts accelerometer updates every interval seconds. Returns a SOCK_SEQPACKET socket on which each sample arrives as a 32-byte little-endian record (uint64 timestamp in ns on CLOCK_MONOTONIC, float64 x, y, z in g, Core Motion's axes and signs: face up reads z = -1), and the stream's id. Closing the socket ends the stream. InvalidArgs for an interval not above 0 or outside ShortestInterval..LongestInterval; TooManyStreams beyond MaxStreams; NoAccelerometer."
        ),
        .replyLater(
          "StartDeviceMotionUpdates", in: "d", out: "hu", inNames: ["interval"], outNames: ["samples", "id"]
        ) { [weak self] call in self?.startUpdates(call, kind: .deviceMotion) }
        .documented(
          "Starts device-motion updates every interval seconds: 56-byte little-endian records (uint64 timestamp in ns, float64 gravity x, y, z, then user acceleration x, y, z, in g). Otherwise as StartAccelerometerUpdates."
        ),
        .replyLater("StopUpdates", in: "u", inNames: ["id"]) { [weak self] call in self?.stopUpdates(call) }
          .documented(
            "Ends the stream id started by this connection (UnknownStream otherwise) and closes its socket."),
        .replyLater("BeginGeneratingDeviceOrientationNotifications") { [weak self] call in
          self?.beginOrientation(call)
        }
        .documented("Keeps the accelerometer sampling so that DeviceOrientation is kept up to date."),
        .replyLater("EndGeneratingDeviceOrientationNotifications") { [weak self] call in
          self?.endOrientation(call)
        }
        .documented("Ends what BeginGeneratingDeviceOrientationNotifications started for this connection."),
      ],
      properties: [
        DBusProperty(
          "AccelerometerAvailable", changeSignal: .invalidates,
          get: { [weak self] in self?.readAvailability() != nil }
        ).documented("Whether there is an accelerometer to stream from."),
        DBusProperty(
          "AccelerometerName", changeSignal: .invalidates,
          get: { [weak self] in self?.readAvailability()?.name ?? "" }
        ).documented("The IIO name of the accelerometer (\"bmc150_accel\"); empty without one."),
        DBusProperty(
          "AvailableIntervals", changeSignal: .invalidates,
          get: { [weak self] in self?.availableIntervals ?? [] }
        ).documented("The sampling periods the sensor offers within the limits, in seconds, shortest first."),
        DBusProperty(
          "ShortestInterval", changeSignal: .invalidates, get: { [weak self] in self?.shortestInterval ?? 0 }
        ).documented("The shortest interval a stream may ask for: 0.005 s, or the sensor's fastest period."),
        DBusProperty("LongestInterval", changeSignal: .constant, get: { MotionBusAPI.longestInterval })
          .documented("The longest interval a stream may ask for, in seconds."),
        DBusProperty("MaxStreams", changeSignal: .constant, get: { UInt32(MotionBusAPI.maxStreams) })
          .documented("The most streams served at once, all clients together."),
        DBusProperty("Streams", get: { [weak self] in UInt32(self?.streams.count ?? 0) })
          .documented("The streams served now."),
        DBusProperty("SensorInterval", get: { [weak self] in self?.sensorInterval ?? 0 })
          .documented("The sensor's sampling period now, in seconds (0 while it is closed)."),
        DBusProperty(
          "DeviceOrientation", get: { [weak self] in self?.estimator.orientation.rawValue ?? "unknown" }
        ).documented(
          "UIDeviceOrientation's case: unknown, portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp or faceDown, with hysteresis at 45 degrees; unknown while the sensor is closed."
        ),
      ]
    ).documented(
      "Motion data for applications, as Core Motion gives them: accelerometer and device-motion samples on a socket per stream (never on the bus), and the device orientation. Served on /org/responderd/Daemon1 beside org.responderd.Daemon1."
    )
  }

  private func probe() -> (id: String, name: String, availableRates: [Double])? {
    motion?.shake?.input.probe()
  }

  /// What the availability properties say now, noted as told to the client reading them.
  private func readAvailability() -> Availability? {
    let now = probe().map { Availability(name: $0.name, rates: $0.availableRates) }
    publishedAvailability = .some(now)
    return now
  }

  /// An IIO device came or went, or the sensor opened or closed: the availability properties are
  /// invalidated (PropertiesChanged) when what they say changed, checked once the loop turns.
  private func availabilityMayHaveChanged() {
    guard !availabilityCheckPending else { return }
    availabilityCheckPending = true
    loop.runSoon { [weak self] in
      guard let self else { return }
      self.availabilityCheckPending = false
      let now = self.probe().map { Availability(name: $0.name, rates: $0.availableRates) }
      guard self.publishedAvailability != .some(now) else { return }
      self.publishedAvailability = .some(now)
      self.logger.info(
        now.map { "motion-api: accelerometer \($0.name) available" }
          ?? "motion-api: no accelerometer available")
      try? self.object?.propertiesChanged(
        interface: MotionBusAPI.interface,
        ["AccelerometerAvailable", "AccelerometerName", "AvailableIntervals", "ShortestInterval"])
    }
  }

  /// The sampling intervals the sensor offers within the limits, shortest first.
  private var availableIntervals: [Double] {
    let rates = readAvailability()?.rates ?? []
    return rates.reversed().map { 1 / $0 }.filter {
      $0 >= MotionBusAPI.shortestInterval - 1e-9 && $0 <= MotionBusAPI.longestInterval
    }
  }

  /// The shortest interval a client may ask for: the API's limit, or the sensor's fastest period
  /// when that is longer.
  private var shortestInterval: Seconds {
    let fastest = probe()?.availableRates.last.map { 1 / $0 } ?? 0
    return max(MotionBusAPI.shortestInterval, fastest)
  }

  /// The period of the sensor now (0 while it is closed).
  private var sensorInterval: Seconds {
    guard let rate = motion?.shake?.input.sensor?.rate, rate > 0 else { return 0 }
    return 1 / rate
  }

  // MARK: Methods

  /// Runs `body` when the caller runs as the daemon's user (the responder API's check, through
  /// the bus's `SameUserCallers`); answers AccessDenied otherwise.
  private func checkCaller(_ call: DBusMethodCall, then body: @escaping (SameUserCallers.Caller) -> Void) {
    guard let callers = bus?.callers else { return call.reply(error: .disconnected()) }
    callers.check(call, then: body)
  }

  private func startUpdates(_ call: DBusMethodCall, kind: StreamKind) {
    let interval = call.arguments.first?.double ?? .nan
    guard interval.isFinite, interval > 0 else {
      return call.reply(error: .invalidArgs("interval \(interval) s: it must be a number of seconds above 0"))
    }
    guard interval <= MotionBusAPI.longestInterval else {
      return call.reply(
        error: .invalidArgs(
          "interval \(interval) s is longer than the longest, \(formatSeconds(MotionBusAPI.longestInterval)) s"
        ))
    }
    checkCaller(call) { [weak self] _ in
      guard let self else { return }
      guard self.motion?.shake != nil, self.probe() != nil else {
        return call.reply(
          error: DBusError(
            MotionBusAPI.ErrorName.noAccelerometer,
            self.motion?.shake == nil
              ? "motion is disabled in responderd's config ([motion] enabled = false)"
              : "responderd finds no accelerometer"))
      }
      let shortest = self.shortestInterval
      guard interval >= shortest - 1e-9 else {
        return call.reply(
          error: .invalidArgs(
            "interval \(interval) s is shorter than the shortest, \(formatSeconds(shortest, decimals: 4)) s"))
      }
      guard self.streams.count < MotionBusAPI.maxStreams else {
        return call.reply(
          error: DBusError(
            MotionBusAPI.ErrorName.tooManyStreams,
            "responderd serves \(MotionBusAPI.maxStreams) motion streams already, the most it serves"))
      }
      do {
        let (stream, clientEnd) = try self.open(kind: kind, busName: call.sender, interval: interval)
        // The reply duplicates the descriptor: the client gets its own, ours is closed.
        let failure = call.replyOrError([.unixFD(clientEnd.rawValue), .uint32(stream.id)])
        try? clientEnd.close()
        if let failure {
          // The client got that error, not a socket (out of descriptors): say so, not that it
          // closed the socket.
          return self.release(stream, reason: "its socket could not be passed: \(failure.message)")
        }
        self.logger.info(
          "motion-api: \(call.sender) streams \(kind.rawValue) every \(formatSeconds(interval, decimals: 4)) s (stream \(stream.id))"
        )
      } catch {
        call.reply(error: DBusError(DBusError.Name.failed, "cannot create the stream's socket: \(error)"))
      }
    }
  }

  private func open(kind: StreamKind, busName: String, interval: Seconds) throws -> (Stream, FileDescriptor) {
    // Blocking for the client (its end is its own to read as it likes); the daemon never waits on
    // its end: every send and recv is MSG_DONTWAIT.
    let (daemonEnd, clientEnd): (FileDescriptor, FileDescriptor)
    do {
      (daemonEnd, clientEnd) = try FileDescriptor.recordSocketPair()
    } catch {
      throw SystemError("socketpair", errno: error)
    }
    // A client that stops reading finds at most about `slack` of samples waiting when it reads
    // again (newer ones are dropped meanwhile), not seconds of stale ones: the socket holds that
    // many records (the kernel's accounting is per record, its `truesize`).
    let recordSize = kind == .accelerometer ? AccelerometerRecord.size : DeviceMotionRecord.size
    let records = min(256, max(Self.minimumQueuedRecords, Int((Self.slack / interval).rounded(.up))))
    // (Half: the kernel doubles it.)
    try? daemonEnd.setSendBufferSize(records * truesize(ofRecord: recordSize) / 2)
    let id = nextID
    nextID &+= 1
    let stream = Stream(id: id, kind: kind, busName: busName, interval: interval, fd: daemonEnd)
    do {
      stream.source = try loop.register(fd: daemonEnd, events: .readable) {
        [weak self] events in
        self?.clientSide(of: id, events)
      }
    } catch {
      try? daemonEnd.close()
      try? clientEnd.close()
      throw error
    }
    streams[id] = stream
    watch(busName)
    demandChanged()
    return (stream, clientEnd)
  }

  /// How far behind a client may fall before samples are dropped: the samples its socket holds.
  static let slack: Seconds = 0.5
  /// The fewest records a stream's socket holds.
  static let minimumQueuedRecords = 4

  /// What the kernel counts against the send buffer for one record of `size` bytes on a unix
  /// socket (its skb's truesize: about 768 bytes on x86-64), measured once on a socket pair of
  /// its own; 1024 when it cannot be measured.
  private func truesize(ofRecord size: Int) -> Int {
    if let known = recordTruesizes[size] { return known }
    var measured = 1024
    if case let (one, other)? = try? FileDescriptor.recordSocketPair() {
      let record = [UInt8](repeating: 0, count: size)
      if (try? record.withUnsafeBytes { try one.sendRecord($0) }) == size,
        let queued = try? one.queuedOutputBytes(), queued > size
      {
        measured = queued
      }
      try? one.close()
      try? other.close()
    }
    recordTruesizes[size] = measured
    return measured
  }
  private var recordTruesizes: [Int: Int] = [:]

  /// The client wrote on its socket (ignored) or closed it (the stream ends).
  private func clientSide(of id: UInt32, _ events: IOEvents) {
    guard let stream = streams[id] else { return }
    if events.isGone { return release(stream, reason: "its client closed the socket") }
    var buffer = [UInt8](repeating: 0, count: 64)
    let received = buffer.withUnsafeMutableBytes { buffer in
      Result { () throws(Errno) in try stream.fd.receiveRecord(into: buffer) }
    }
    switch received {
    case .success(0): release(stream, reason: "its client closed the socket")
    case .success, .failure(.wouldBlock): break  // (What a client writes is ignored.)
    case .failure: release(stream, reason: "its client closed the socket")
    }
  }

  private func stopUpdates(_ call: DBusMethodCall) {
    let id = call.arguments.first?.uint32 ?? 0
    checkCaller(call) { [weak self] _ in
      guard let self else { return }
      guard let stream = self.streams[id], stream.busName == call.sender else {
        return call.reply(
          error: DBusError(
            MotionBusAPI.ErrorName.unknownStream, "this connection has no motion stream with id \(id)"))
      }
      self.release(stream, reason: "stopped")
      call.reply([])
    }
  }

  private func beginOrientation(_ call: DBusMethodCall) {
    checkCaller(call) { [weak self] _ in
      guard let self else { return }
      self.orientationWatchers[call.sender, default: 0] += 1
      self.watch(call.sender)
      self.demandChanged()
      call.reply([])
    }
  }

  private func endOrientation(_ call: DBusMethodCall) {
    checkCaller(call) { [weak self] _ in
      guard let self else { return }
      if let count = self.orientationWatchers[call.sender] {
        self.orientationWatchers[call.sender] = count > 1 ? count - 1 : nil
      }
      self.unwatchIfUnused(call.sender)
      self.demandChanged()
      call.reply([])
    }
  }

  // MARK: Clients

  /// Releases the streams and orientation notifications of `busName` as soon as it leaves the bus.
  private func watch(_ busName: String) {
    guard watches[busName] == nil, let connection else { return }
    watches[busName] = connection.watchNameOwner(busName) { [weak self] owner in
      guard owner == nil, let self else { return }
      self.watches.removeValue(forKey: busName)?.cancel()
      for stream in self.streams.values where stream.busName == busName {
        self.release(stream, reason: "\(busName) left the bus")
      }
      if self.orientationWatchers.removeValue(forKey: busName) != nil { self.demandChanged() }
    }
  }

  private func unwatchIfUnused(_ busName: String) {
    guard orientationWatchers[busName] == nil, !streams.values.contains(where: { $0.busName == busName })
    else { return }
    watches.removeValue(forKey: busName)?.cancel()
  }

  private func release(_ stream: Stream, reason: String) {
    guard streams.removeValue(forKey: stream.id) != nil else { return }
    stream.source?.remove()
    try? stream.fd.close()
    let dropped = stream.dropped > 0 ? ", \(stream.dropped) dropped (client too slow)" : ""
    logger.info(
      "motion-api: stream \(stream.id) of \(stream.busName) ended (\(reason)) after \(stream.sent) samples\(dropped)"
    )
    unwatchIfUnused(stream.busName)
    demandChanged()
  }

  private func releaseAll(reason: String) {
    for stream in streams.values { release(stream, reason: reason) }
    for watch in watches.values { watch.cancel() }
    watches.removeAll()
    orientationWatchers.removeAll()
    demandChanged()
  }

  private func demandChanged() {
    let fastest = streams.values.map { 1 / $0.interval }.max() ?? 0
    motion?.interest.streams = MotionStreamDemand(
      streams: streams.count, orientationWatchers: orientationWatchers.count, fastestRate: fastest)
    var changed = ["Streams"]
    let interval = sensorInterval
    if interval != lastSensorInterval {
      lastSensorInterval = interval
      changed.append("SensorInterval")
    }
    try? object?.propertiesChanged(interface: MotionBusAPI.interface, changed)
  }

  // MARK: Samples

  private func deliver(_ sample: MotionSample, gravity: Vector3) {
    let previous = estimator.orientation
    if estimator.update(gravity: gravity) != previous {
      logger.info("motion-api: device orientation \(estimator.orientation)")
      try? object?.propertiesChanged(interface: MotionBusAPI.interface, ["DeviceOrientation"])
      for observer in orientationObservers { observer(estimator.orientation) }
    }
    // The tolerance of decimation: the actual spacing of samples, else the sensor's nominal one.
    var period = sensorInterval
    if let last = lastSampleTime, sample.t > last, sample.t - last < 1 { period = sample.t - last }
    lastSampleTime = sample.t
    guard !streams.isEmpty else { return }
    let timestamp = UInt64(max(0, (sample.t * 1e9).rounded()))
    // Core Motion's signs: the reading's opposite, in g (lying face up reads z = -1).
    let toG = -1 / standardGravity
    // (+ .zero: an axis reading 0 reads +0, not -0.)
    let a = sample.acceleration * toG + .zero
    let g = gravity * toG + .zero
    let user = a - g + .zero
    var accelerometer: [UInt8]?
    var deviceMotion: [UInt8]?
    var gone: [Stream] = []
    for stream in streams.values where stream.isDue(sample.t, period: period) {
      let bytes: [UInt8]
      switch stream.kind {
      case .accelerometer:
        if accelerometer == nil {
          accelerometer = AccelerometerRecord(timestamp: timestamp, x: a.x, y: a.y, z: a.z).bytes
        }
        bytes = accelerometer!
      case .deviceMotion:
        if deviceMotion == nil {
          deviceMotion =
            DeviceMotionRecord(
              timestamp: timestamp, gravity: (g.x, g.y, g.z), userAcceleration: (user.x, user.y, user.z)
            ).bytes
        }
        bytes = deviceMotion!
      }
      let sent = bytes.withUnsafeBytes { record in
        Result { () throws(Errno) in try stream.fd.sendRecord(record) }
      }
      if case .success(bytes.count) = sent {
        stream.sent += 1
        if stream.droppedInSpell > 0 {
          // (Each spell after the first at debug level: a client always a little slow would fill
          // the journal.)
          logger.log(
            level: stream.dropped == stream.droppedInSpell ? .info : .debug,
            "motion-api: stream \(stream.id) of \(stream.busName) reads again (\(stream.droppedInSpell) samples dropped meanwhile)"
          )
          stream.droppedInSpell = 0
        }
      } else if case .failure(let error) = sent, error == .wouldBlock || error == .noBufferSpace {
        if stream.droppedInSpell == 0 {
          logger.log(
            level: stream.dropped == 0 ? .info : .debug,
            "motion-api: stream \(stream.id) of \(stream.busName) is not read fast enough: samples dropped until it reads again"
          )
        }
        stream.dropped += 1
        stream.droppedInSpell += 1
      } else {
        gone.append(stream)
      }
    }
    for stream in gone { release(stream, reason: "its socket failed") }
  }

  private func sensorClosed() {
    for stream in streams.values { stream.nextDue = nil }
    lastSampleTime = nil
    // A sensor reopened at another rate (a stream came or went) keeps the orientation: it is
    // forgotten only when the sensor stays closed.
    loop.runSoon { [weak self] in
      guard let self, self.motion?.shake?.input.sensor == nil, self.estimator.orientation != .unknown
      else { return }
      self.estimator.reset()
      try? self.object?.propertiesChanged(interface: MotionBusAPI.interface, ["DeviceOrientation"])
      for observer in self.orientationObservers { observer(.unknown) }
    }
  }
}
