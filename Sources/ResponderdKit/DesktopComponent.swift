import DesktopWatch
import Logging
import ResponderConfig

/// Whether the desktop handles media keys (`[keys] desktop-handles-media-keys`, detected on the
/// session bus when "auto"), and what that changes: while it does, the evdev component leaves the
/// devices it shares with the desktop to it (one press, one action; DESIGN.md section 3a).
/// `responderctl devices` and `responderctl status` show the finding as a note.
public final class DesktopComponent: ServiceComponent {
  public let componentName = "desktop"
  /// The detection on the session bus (used with "auto").
  public let watcher: DesktopMediaKeysWatcher
  /// The desktop that handles media keys now, nil when none does (or the setting says "no").
  public private(set) var desktop: String?
  /// What the devices report says about it.
  public private(set) var note = ""
  private let keys: KeysComponent
  private var setting = DesktopMediaKeysSetting.auto
  private var logger = Logger(label: "responderd")

  /// A component that tells `keys` which desktop handles media keys.
  public init(keys: KeysComponent) {
    self.keys = keys
    watcher = DesktopMediaKeysWatcher()
  }

  public func start(in service: Service) throws {
    logger = service.logger
    setting = service.config.keys.desktopHandlesMediaKeys
    switch setting {
    case .no:
      apply(nil)
    case .yes:
      apply("the desktop's own key bindings (desktop-handles-media-keys = \"yes\")")
    case .auto:
      apply(nil)
      watcher.addObserver { [weak self] found in self?.apply(found?.description) }
      service.bus?.withConnection { [weak self, weak service] connection in
        self?.watcher.attach(to: connection)
        // Plasma's media controller, started after responderd, registers with kglobalaccel
        // unannounced, then reads every player, responderd's proxy among them: a new caller is
        // the moment to ask kglobalaccel again.
        service?.bus?.callers?.addNewCallerObserver { [weak self] _ in self?.watcher.recheck() }
      }
    }
  }

  public func stop() {
    watcher.detach()
  }

  private func apply(_ desktop: String?) {
    let changed = desktop != self.desktop
    self.desktop = desktop
    note = Self.note(desktop: desktop, setting: setting)
    keys.reportNotes = [note]
    keys.setDesktop(desktop)
    guard changed || setting != .auto else { return }
    if let desktop {
      logger.info(
        "desktop: \(desktop) handles media keys: the devices responderd shares with it are left to it")
    } else if setting == .auto {
      logger.info("desktop: no desktop handling media keys on the session bus: shared devices are read")
    }
  }

  /// The line `responderctl devices` and `status` show.
  static func note(desktop: String?, setting: DesktopMediaKeysSetting) -> String {
    switch (desktop, setting) {
    case (let desktop?, .auto):
      "desktop: \(desktop) handles media keys: shared devices (keyboards, remotes, devices another program holds) are left to it, so that one press makes one action; owned devices stay responderd's"
    case (_, .yes):
      "desktop: handles media keys (desktop-handles-media-keys = \"yes\"): shared devices are left to it; owned devices stay responderd's"
    case (_, .no):
      "desktop: not consulted (desktop-handles-media-keys = \"no\"): responderd reads the media keys of shared devices too"
    case (nil, _):
      "desktop: none handles media keys (GNOME, Phosh and KDE Plasma are detected on the session bus; say desktop-handles-media-keys = \"yes\" for sway or Hyprland key bindings): responderd reads the media keys of shared devices"
    }
  }
}
