import EventLoop
import InputCodes

// Hotplug and reading: which devices are opened, how, and what is read from them.
extension MediaKeyInput {
  /// Opens the devices present and follows hotplug. Logs, in one line, what it found.
  public func start() throws {
    try watcher.start(
      onAdd: { [weak self] node in self?.add(node) },
      onRemove: { [weak self] node in self?.remove(node.devnode, reason: "removed") })
    let found = openDevices
    if found.isEmpty {
      logger.notice("evdev: no device with media or headset keys yet; waiting for one to be plugged in")
    } else {
      logger.info(
        "evdev: reading \(found.map { "\($0.path) '\($0.identity.name)'" }.joined(separator: ", "))")
    }
    if !watcher.isMonitoring {
      logger.warning("evdev: no udev monitor: devices plugged in later are not seen")
    }
  }

  /// Closes every device and stops following hotplug. Seeks under way end now.
  public func stop() {
    watcher.stop()
    for path in readers.keys.sorted() { remove(path, reason: "stopped") }
    statuses.removeAll()
    closed.removeAll()
  }

  /// Looks at one node by path (udev's description of it, when it has one, tells its USB
  /// interfaces).
  public func add(_ path: String) {
    add(watcher.node(devnode: path) ?? UdevInputWatcher.Node(devnode: path))
  }

  /// Looks at one node: opened and kept when it has mapped keys and no rule ignores it; owned
  /// (grabbed) when its rule or its class says so.
  public func add(_ node: UdevInputWatcher.Node) {
    let path = node.devnode
    guard readers[path] == nil else { return }
    guard !isSuspended else {
      setStatus(
        DeviceStatus(
          path: path, state: .leftAlone, reason: Self.sessionInactiveReason, reasonCode: "session-inactive"))
      return
    }
    let device: any InputDevice
    do {
      device = try watcher.open(path)
    } catch {
      logger.debug("evdev: cannot open \(path): \(error)")
      setStatus(
        DeviceStatus(
          path: path, state: .leftAlone, reason: "cannot open: \(error)", reasonCode: "cannot-open"))
      notify(.skipped(path: path, reason: "\(error)"))
      return
    }
    let identity = device.identity
    let isKeyboard = Self.letterKeys.contains { device.has(type: InputCode.EV_KEY, code: $0) }
    let decision = decide(
      KeyDeviceCandidate(identity: identity, usbInterfaces: node.usbInterfaces, isKeyboard: isKeyboard))
    let mapped = MappedKeyFilter(keys: decision.isIgnored ? [] : decision.mappedKeys)
    let keys = mapped.mappedKeys(of: device)
    guard !decision.isIgnored, !keys.isEmpty else {
      device.close()
      let reason = decision.isIgnored ? "ignored by a device rule" : "no mapped key"
      logger.debug("evdev: \(path) '\(identity.name)': \(reason)")
      setStatus(
        DeviceStatus(
          path: path, identity: identity, state: .leftAlone,
          reason: decision.isIgnored ? "ignored by a device rule" : "no media or headset key",
          reasonCode: decision.isIgnored ? "ignored" : "no-media-key"))
      notify(.skipped(path: path, reason: reason))
      return
    }
    // Owned, every key but the typing keys is read; shared, only the mapped ones.
    let ownedKeys =
      decision.grab
      ? Set(device.codes(ofType: InputCode.EV_KEY, upTo: MappedKeyFilter.keyMax)).subtracting(
        mapped.mappedKeys
      )
      .filter { !InputCode.isTypingKey($0) } : Set<UInt16>()
    let readFilter = MappedKeyFilter(keys: mapped.mappedKeys.union(ownedKeys))
    readFilter.restrict(device)
    let monotonic = device.setClockMonotonic()
    let info = OpenDevice(
      path: path, syspath: node.syspath, identity: identity, keys: keys, clockIsMonotonic: monotonic,
      source: "evdev:\(path)", isOwned: false)
    let status = DeviceStatus(
      path: path, identity: identity, state: .shared, reason: decision.explanation,
      reasonCode: decision.reasonCode,
      keys: keys.map(InputCode.keyName))
    let reader = Reader(
      info: info, device: device, filter: mapped, ownedKeys: ownedKeys, readFilter: readFilter,
      decision: decision, status: status)
    do {
      try device.watch(on: loop) { [weak self] hungUp in self?.ready(path, hungUp: hungUp) }
    } catch {
      device.close()
      logger.error("evdev: \(path): \(error)")
      return
    }
    readers[path] = reader
    closed[path] = nil
    sink(.deviceOpened(source: info.source, identity: identity))
    logger.info(
      "evdev: opened \(path) '\(identity.name)' (\(identity.id)) for \(keys.map(InputCode.keyName).joined(separator: ", "))\(monotonic ? "" : "; clock: realtime, converted")"
    )
    if decision.grab && isKeyboard {
      logger.warning(
        "evdev: \(path) '\(identity.name)' has typing keys and a rule says grab = \"always\": while responderd holds it, the desktop gets none of its keys"
      )
    }
    transition(path, .opened(toBeOwned: decision.grab))
    notify(.opened(readers[path]?.info ?? info))
    if desktop != nil { transition(path, .desktopAppeared) }
  }

  /// Closes a device (unplugged, removed, or on stop): seeks it had begun end now. A grabbed
  /// device is released first.
  public func remove(_ path: String, reason: String) {
    remove(path, reason: reason, forget: true)
  }

  func remove(_ path: String, reason: String, forget: Bool) {
    if forget {
      statuses[path] = nil
      closed[path] = nil
    }
    guard let reader = readers.removeValue(forKey: path) else { return }
    reader.device.close()
    sink(.deviceClosed(source: reader.info.source, at: scheduler.now))
    logger.info("evdev: closed \(path) '\(reader.info.identity.name)' (\(reason))")
    notify(.closed(path: path, reason: reason))
  }

  private func ready(_ path: String, hungUp: Bool) {
    guard let reader = readers[path] else { return }
    // Read what is pending first, even on hang-up: a release may be in it.
    let dropped = reader.device.droppedCount
    let status = reader.device.read(accept: reader.readFilter.accepts) { frame in
      deliver(frame, from: reader)
    }
    if !readObservers.isEmpty {
      for _ in dropped..<reader.device.droppedCount {
        for observer in readObservers { observer(.resynced(path: path)) }
      }
    }
    if case .gone(let error) = status {
      remove(path, reason: "gone (\(error))")
    } else if hungUp {
      remove(path, reason: "gone (hang-up)")
    } else {
      transition(path, .eventsRead)
    }
  }

  /// Letter keys: a device with one of them is a keyboard (KEY_Q … KEY_P, KEY_A … KEY_L, KEY_Z …
  /// KEY_M).
  static let letterKeys: [UInt16] = Array(16...25) + Array(30...38) + Array(44...50)
}
