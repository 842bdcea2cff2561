import EvdevInput
import Logging
import RemoteControl
import ResponderCore

/// Headset and media keys from evdev (`[keys]`): the devices with mapped keys are read on the
/// service's loop, and every emitted event is posted to the application as a remote-control event
/// (its first responder, then the chain of handlers).
public final class KeysComponent: ServiceComponent {
  public let componentName = "evdev"
  /// The evdev reader, while started.
  public private(set) var input: MediaKeyInput?

  public init() {}

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
    self.input = input
    guard !isSuspended else { return }  // opened by resume()
    try input.start()
  }

  public func stop() {
    input?.stop()
    input = nil
  }

  /// Whether the devices are released because the user's session is not in front (`suspend`).
  public private(set) var isSuspended = false

  /// The session went inactive (another user's session in front): every device is closed and
  /// hotplug is no longer followed, so nothing is read until `resume()`. Seeks under way end.
  public func suspend() {
    guard !isSuspended else { return }
    isSuspended = true
    guard let input else { return }
    for device in input.openDevices { input.remove(device.path, reason: "session inactive") }
    input.stop()
  }

  /// The session is in front again: the devices present are opened again and hotplug followed.
  public func resume(logger: Logger) {
    guard isSuspended else { return }
    isSuspended = false
    do {
      try input?.start()
    } catch {
      logger.error("evdev: cannot follow the input devices again: \(error)")
    }
  }
}

extension Service {
  /// The keys component, when the service has one.
  public var keys: KeysComponent? {
    components.lazy.compactMap { $0 as? KeysComponent }.first
  }
}
