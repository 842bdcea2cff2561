import EventTime
import InputCodes

#if canImport(Glibc)
  import Glibc
#endif

// The fan-out of what is read: mapped keys to the read observers and the sink, an owned
// device's volume keys to the volume observers, its other keys to the owned-key observers.
extension MediaKeyInput {
  func deliver(_ frame: EvdevFrame, from reader: Reader) {
    for event in frame.events where event.type == InputCode.EV_KEY {
      var event = event
      if convertsToMonotonic && !reader.info.clockIsMonotonic {
        event.time = Self.monotonic(fromRealtime: event.time)
      }
      guard reader.filter.accepts(type: event.type, code: event.code) else {
        // Read only while owned (before the grab, the desktop has them).
        if reader.info.isOwned, reader.ownedKeys.contains(event.code) { ownedKey(event, from: reader) }
        continue
      }
      logger.trace(
        "evdev: \(InputCode.keyName(event.code)) \(event.value == 1 ? "down" : event.value == 0 ? "up" : "repeat") at \(event.time) (\(reader.info.path))"
      )
      for observer in readObservers {
        observer(.key(path: reader.info.path, code: event.code, value: event.value))
      }
      sink(.key(event, source: reader.info.source))
    }
  }

  /// A key of an owned device that is not mapped: a volume key, or another one.
  private func ownedKey(_ event: RawInputEvent, from reader: Reader) {
    let path = reader.info.path
    if [InputCode.KEY_VOLUMEUP, InputCode.KEY_VOLUMEDOWN, InputCode.KEY_MUTE].contains(event.code) {
      guard !volumeKeyObservers.isEmpty else {
        if readers[path]?.loggedUnhandledVolume == false {
          readers[path]?.loggedUnhandledVolume = true
          logger.notice(
            "evdev: \(path) '\(reader.info.identity.name)': its volume keys are responderd's, but no sound-server adapter takes them: they do nothing"
          )
        }
        return
      }
      let volume = VolumeKeyEvent(
        code: event.code, value: event.value, timestamp: event.time, path: path, syspath: reader.info.syspath,
        identity: reader.info.identity)
      for observer in volumeKeyObservers { observer(volume) }
      return
    }
    guard event.value == 0 || event.value == 1 else { return }
    let key = OwnedKeyEvent(
      code: event.code, value: event.value, timestamp: event.time, path: path, identity: reader.info.identity)
    for observer in ownedKeyObservers { observer(key) }
  }

  /// A CLOCK_REALTIME timestamp on CLOCK_MONOTONIC (never later than now).
  static func monotonic(fromRealtime time: Seconds) -> Seconds {
    var realtime = timespec()
    var monotonic = timespec()
    clock_gettime(CLOCK_REALTIME, &realtime)
    clock_gettime(CLOCK_MONOTONIC, &monotonic)
    let now = Seconds(monotonic.tv_sec) + Seconds(monotonic.tv_nsec) / 1e9
    let offset = Seconds(realtime.tv_sec) + Seconds(realtime.tv_nsec) / 1e9 - now
    return min(time - offset, now)
  }
}
