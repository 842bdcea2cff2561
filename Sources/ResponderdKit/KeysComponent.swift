import EvdevInput
import Logging
import RemoteControl
import ResponderCore

/// Headset and media keys from evdev (`[keys]`): the devices with mapped keys are read on the
/// service's loop, and every emitted event is posted to the application as a remote-control event
/// (its first responder, then the chain of handlers). Headset-class devices are owned (grabbed):
/// their volume keys go to the volume key observers (the sound-server adapter), their other keys
/// to the owned-key observers.
public final class KeysComponent: ServiceComponent {
  public let componentName = "evdev"
  /// The evdev reader, while started.
  public private(set) var input: MediaKeyInput?
  private var volumeKeyObservers: [(MediaKeyInput.VolumeKeyEvent) -> Void] = []
  private var ownedKeyObservers: [(MediaKeyInput.OwnedKeyEvent) -> Void] = []
  private var deviceObservers: [(MediaKeyInput.DeviceChange) -> Void] = []
  private var suspendedBeforeStart = false

  public init() {}

  /// Calls `observer`, on the loop thread, with every volume key event (KEY_VOLUMEUP,
  /// KEY_VOLUMEDOWN, KEY_MUTE: press, release, auto-repeat) of an owned device, with the device's
  /// identity and sysfs path (to find the headset's own sink). Volume keys of shared devices are
  /// the desktop's and never read. May be called before or after `start`.
  public func addVolumeKeyObserver(_ observer: @escaping (MediaKeyInput.VolumeKeyEvent) -> Void) {
    volumeKeyObservers.append(observer)
    input?.addVolumeKeyObserver(observer)
  }

  /// Calls `observer` with every press and release of an owned device's other keys
  /// (KEY_VOICECOMMAND, KEY_PHONE, KEY_MICMUTE, …). May be called before or after `start`.
  public func addOwnedKeyObserver(_ observer: @escaping (MediaKeyInput.OwnedKeyEvent) -> Void) {
    ownedKeyObservers.append(observer)
    input?.addOwnedKeyObserver(observer)
  }

  /// Calls `observer` with every change to the devices (opened, closed, status). May be called
  /// before or after `start`.
  public func addDeviceObserver(_ observer: @escaping (MediaKeyInput.DeviceChange) -> Void) {
    deviceObservers.append(observer)
    input?.addDeviceObserver(observer)
  }

  /// Every input device seen and what responderd does with it (empty while keys are off).
  public var deviceStatuses: [DeviceStatus] { input?.deviceStatuses ?? [] }

  /// The user's session went inactive: every input device is released (ungrabbed) and closed, and
  /// none is opened until `resume()`. Before `start`, the service starts suspended.
  public func suspend() {
    guard let input else {
      suspendedBeforeStart = true
      return
    }
    input.suspend()
  }

  /// The session is active again: the devices are opened and taken again.
  public func resume() {
    suspendedBeforeStart = false
    input?.resume()
  }

  public func start(in service: Service) throws {
    let config = service.config.keys
    guard config.enabled else {
      service.logger.info("evdev: media and headset keys are off ([keys] enabled = false)")
      return
    }
    let application = service.application
    let input = MediaKeyInput(loop: service.loop, settings: config.settings, logger: service.logger) {
      emission in
      application.post(
        .remoteControl(emission.subtype, timestamp: emission.timestamp, source: emission.source))
    }
    for observer in volumeKeyObservers { input.addVolumeKeyObserver(observer) }
    for observer in ownedKeyObservers { input.addOwnedKeyObserver(observer) }
    for observer in deviceObservers { input.addDeviceObserver(observer) }
    self.input = input
    if suspendedBeforeStart { input.suspend() }
    try input.start()
  }

  public func stop() {
    input?.stop()
    input = nil
  }
}
