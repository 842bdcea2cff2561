import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// Shakes through the motion component on the test kit's `FakeAccelerometer` and
/// `FakeProximitySensor` (virtual time, no sensor, no process): what a handler of the chain is
/// given, and what `responderctl status` says of the accelerometer, as the user shakes the
/// device, covers the proximity sensor or unplugs a sensor.
@Suite struct MotionSensorSeamTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let accelerometer: FakeAccelerometer
  let proximity: FakeProximitySensor
  let motion: MotionComponent
  /// What the chain's `shakes` handler was given ("motionBegan", "motionEnded", …).
  let given = Recorded<String>()

  /// A handler that takes motion, as an app's responder does.
  final class ShakeHandler: Handler {
    let name = "shakes"
    let eventTypes: Set<EventType> = [.motion]
    let given: Recorded<String>
    init(given: Recorded<String>) { self.given = given }
    func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
      given.values.append("motion" + (phase?.rawValue.capitalized ?? "?"))
      decide(true)
    }
  }

  init() throws {
    var handlers = HandlerRegistry.builtIn
    handlers.register("shakes") { [given] _ in ShakeHandler(given: given) }
    var config = ResponderdConfig()
    config.chain = ["log", "shakes"]
    harness = try InMemoryService(config: config, handlers: handlers)
    accelerometer = FakeAccelerometer(time: harness.time)
    proximity = FakeProximitySensor(watch: accelerometer)
    motion = harness.service.motionComponent(accelerometer: accelerometer, proximitySensors: proximity)
    harness.add(motion)
    harness.start()
  }

  @Test func aShakeReachesTheHandlerAsBeganThenEnded() {
    #expect(accelerometer.isWanted && accelerometer.opens == 1)
    #expect(log.all.contains("info: iio: motion wanted by shakes: sampling the accelerometer"))
    #expect(motion.accelerometerState == "sampled (iio:device0 (bmc150_accel), polled at 50 Hz)")
    accelerometer.lieStill(for: 1)
    #expect(given.values.isEmpty, "a device lying still does not shake")
    accelerometer.shakeBackAndForth()
    #expect(given.values == ["motionBegan"])
    accelerometer.lieStill(for: 2)
    #expect(given.values == ["motionBegan", "motionEnded"])
    #expect(records().map(\.source) == ["iio:iio:device0", "iio:iio:device0"])
    #expect(records().map(\.handledBy) == ["shakes", "shakes"])
  }

  @Test func aCoveredProximitySensorMeansNoShake() {
    #expect(proximity.finds == 1 && motion.proximity != nil)
    proximity.isCovered = true
    accelerometer.shake()
    #expect(given.values.isEmpty, "a phone in a pocket does not undo")
    #expect(
      log.all.contains("info: iio: a shake began while the proximity sensor reads near (400): not delivered"))
    proximity.isCovered = false
    accelerometer.shake()
    #expect(given.values == ["motionBegan", "motionEnded"])
  }

  @Test func aProximitySensorCoveredDuringAShakeCancelsIt() {
    accelerometer.lieStill(for: 1)
    accelerometer.shakeBackAndForth(for: 0.8)
    #expect(given.values == ["motionBegan"])
    proximity.isCovered = true
    accelerometer.shakeBackAndForth(for: 0.7)
    accelerometer.lieStill(for: 2)
    #expect(given.values == ["motionBegan", "motionCancelled"])
  }

  @Test func anUnpluggedAccelerometerCancelsTheShakeAndTheServiceWaitsForOne() {
    accelerometer.lieStill(for: 1)
    accelerometer.shakeBackAndForth(for: 0.8)
    accelerometer.unplug()
    #expect(given.values == ["motionBegan", "motionCancelled"])
    #expect(motion.accelerometerState == "not there (waiting for one to appear)")
    #expect(motion.wantedBy == "shakes")
    // Time goes on with no sensor: nothing more is delivered, nothing fails.
    accelerometer.lieStill(for: 5)
    #expect(given.values.count == 2)
    accelerometer.plugIn()
    #expect(motion.accelerometerState == "sampled (iio:device0 (bmc150_accel), polled at 50 Hz)")
    accelerometer.shake()
    #expect(given.values == ["motionBegan", "motionCancelled", "motionBegan", "motionEnded"])
  }

  /// docs/apps.md: no shake is delivered while the screen is locked (or another session is in
  /// front); a shake under way when it locks is cancelled, as UIKit cancels on an interruption; the
  /// accelerometer is closed meanwhile; unlocked, shakes come back.
  @Test func aLockedScreenGetsNoShakeAndCancelsTheOneUnderWay() {
    motion.pauseShakes("the screen is locked")
    #expect(!accelerometer.isWanted)
    #expect(motion.accelerometerState == "closed: shakes are paused (the screen is locked)")
    accelerometer.shake()
    #expect(given.values.isEmpty)

    motion.pauseShakes(nil)
    #expect(accelerometer.isWanted)
    accelerometer.lieStill(for: 1)
    accelerometer.shakeBackAndForth(for: 0.8)
    #expect(given.values == ["motionBegan"])
    motion.pauseShakes("the screen is locked")
    #expect(given.values == ["motionBegan", "motionCancelled"])
    accelerometer.shakeBackAndForth(for: 0.7)
    accelerometer.lieStill(for: 2)
    #expect(given.values == ["motionBegan", "motionCancelled"], "no end after the cancel")

    motion.pauseShakes(nil)
    accelerometer.shake()
    #expect(given.values == ["motionBegan", "motionCancelled", "motionBegan", "motionEnded"])
  }

  @Test func anUnpluggedProximitySensorIsLetGoAndShakesGoOn() {
    proximity.unplug()
    #expect(motion.proximity == nil)
    #expect(
      log.all.contains(
        "notice: iio: proximity sensor iio:device1 (vcnl4040) removed: shakes go on without it"))
    accelerometer.shake()
    #expect(given.values == ["motionBegan", "motionEnded"])
    proximity.plugIn()
    #expect(motion.proximity != nil && proximity.finds == 2)
  }

  @Test func aProximitySensorThatCannotBeReadCountsAsFarAndIsSaidOnce() {
    proximity.readFailure = .ioError
    accelerometer.shake()
    accelerometer.shake()
    #expect(given.values == ["motionBegan", "motionEnded", "motionBegan", "motionEnded"])
    #expect(log.all.filter { $0.contains("could not be read") }.count == 1)
  }

  @Test func nobodyWantingMotionLeavesTheAccelerometerClosed() throws {
    let idle = try InMemoryService(config: "chain = [\"log\"]\n")
    let accelerometer = FakeAccelerometer(time: idle.time)
    let proximity = FakeProximitySensor(watch: accelerometer)
    idle.add(idle.service.motionComponent(accelerometer: accelerometer, proximitySensors: proximity))
    idle.start()
    accelerometer.shake()
    #expect(accelerometer.opens == 0 && accelerometer.delivered == 0 && proximity.finds == 0)
    #expect(idle.records.isEmpty)
  }
}
