import DeviceTestSupport
import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension EvdevInputDeviceTests {
  @Suite("The service with emulated devices")
  struct DaemonDeviceTests {
    /// The current time on CLOCK_REALTIME, the clock the emulated devices' timestamps are on.
    func realtimeNow() -> Seconds {
      var realtime = timespec()
      clock_gettime(CLOCK_REALTIME, &realtime)
      return Seconds(realtime.tv_sec) + Seconds(realtime.tv_nsec / 1000) / 1e6
    }

    @Test("KeysComponent posts the keys of a headset plugged in to the application's first responder")
    func service() throws {
      let tb = try Testbed()
      let keyboard = try tb.add("keyboard")
      let store = LogStore()
      var logger = Logger(label: "responderd") { _ in RecordingLogHandler(store: store) }
      logger.logLevel = .trace
      let config = try ResponderdConfig.parse("chain = [\"log\"]\n[log]\nhandles = true\n", file: "test.toml")
      let loop = try EventLoop()
      let harness = try LoopService(config: config, loop: loop, logger: logger)
      let service = harness.service
      let keys = service.keysComponent(bus: nil)
      harness.add(keys)
      var dispatches: [DispatchRecord] { harness.records }
      let player = PlayerResponder()
      player.app = service.application
      harness.start()
      func wait(_ what: String, _ condition: () -> Bool) throws {
        guard loop.run(until: condition, timeout: 5) else {
          throw TestbedError(
            description: "timed out waiting for \(what); log:\n\(store.all.joined(separator: "\n"))")
        }
      }
      #expect(keys.input?.openDevices.map(\.path) == ["/dev/input/event3"])

      let headset = try tb.add("headset")
      try wait("the headset") { keys.input?.openDevices.count == 2 }
      let start = service.loop.scheduler.now
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: realtimeNow())
      try wait("the first event") { dispatches.count == 1 }
      // Without a first responder, the chain of handlers gets it.
      #expect(dispatches.last?.handledBy == "log")
      #expect(dispatches.last?.source == "evdev:/dev/input/event7")

      player.becomeFirstResponder()
      _ = try type("Top secret", on: keyboard, in: tb, from: realtimeNow()) { _ in }
      try tb.key(keyboard, KEY_STOPCD, 1, at: realtimeNow())
      try wait("stop") { player.received.count == 1 }
      #expect(player.received.first?.hasPrefix("stop@") == true)
      let stopTime = dispatches.last!.timestamp
      #expect(stopTime >= start && stopTime <= service.loop.scheduler.now)

      tb.unplug(headset)
      try wait("the headset to go") { keys.input?.openDevices.count == 1 }
      service.components.forEach { $0.stop() }
      #expect(keys.input == nil)

      let everything = (store.all + dispatches.map(\.description)).joined(separator: "\n")
      #expect(everything.contains("evdev: opened /dev/input/event7"))
      #expect(everything.contains("evdev: closed /dev/input/event7"))
      for word in ["KEY_T ", "KEY_O ", "KEY_S ", "secret", "\(scanCode(20))"] {
        #expect(!everything.contains(word))
      }
    }
  }
}
