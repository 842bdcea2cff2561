import DesktopWatch
import Logging
import ResponderConfig
import ShellGestures

/// The desktop found on the session bus, and what it changes:
///
/// - whether it handles media keys (`[keys] desktop-handles-media-keys`, detected when "auto"):
///   while it does, the evdev component leaves the devices it shares with the desktop to it (one
///   press, one action; docs/design.md#one-press-one-action);
/// - which shell's touch gestures the daemon's whole-screen gestures give way to (`[touch] shell`,
///   detected when "auto" by the name the shell owns: GNOME Shell, Phosh, KWin; none otherwise).
///
/// `responderctl devices` and `responderctl status` show both as notes (the shell profile when
/// touch gestures are configured).
public final class DesktopComponent: ServiceComponent {
  public let componentName = "desktop"
  /// The detection on the session bus (used with "auto").
  public let watcher: DesktopMediaKeysWatcher
  /// The desktop that handles media keys now, nil when none does (or the setting says "no").
  public private(set) var desktop: String?
  /// What the devices report says about it.
  public private(set) var note = ""
  /// The shell profile the touch gestures follow now.
  public private(set) var shellProfile = ShellProfile.none
  /// What the devices report says about it.
  public private(set) var shellNote = ""
  private var shellObservers: [(ShellProfile) -> Void] = []
  private let keys: KeysComponent
  /// Whether the report names the shell profile (touch gestures are configured).
  private let reportsShell: Bool
  private let setting: DesktopMediaKeysSetting
  private let shellSetting: TouchGesturesConfig.ShellSetting
  private let logger: Logger

  private let bus: BusComponent?

  /// A component that tells `keys` which desktop handles media keys, watching the desktop on
  /// `bus` (without it, only the config's settings apply): `mediaKeys` is the config's
  /// `[keys] desktop-handles-media-keys`, `touch` its `[touch]` (the shell setting).
  public init(
    keys: KeysComponent, bus: BusComponent?, mediaKeys: DesktopMediaKeysSetting, touch: TouchGesturesConfig,
    logger: Logger
  ) {
    self.keys = keys
    self.bus = bus
    setting = mediaKeys
    shellSetting = touch.shell
    reportsShell = touch.enabled && !touch.gestures.isEmpty
    self.logger = logger
    watcher = DesktopMediaKeysWatcher()
  }

  public var dependencies: [ServiceComponent] { [keys] + (bus.map { [$0] } ?? []) }

  /// Calls `observer` with each new shell profile.
  public func addShellProfileObserver(_ observer: @escaping (ShellProfile) -> Void) {
    shellObservers.append(observer)
  }

  public func start() throws {
    switch shellSetting {
    case .profile(let profile): applyShell(profile)
    case .auto: applyShell(.none)
    }
    switch setting {
    case .no:
      apply(nil)
    case .yes:
      apply("the desktop's own key bindings (desktop-handles-media-keys = \"yes\")")
    case .auto:
      apply(nil)
    }
    guard setting == .auto || shellSetting == .auto else { return }
    watcher.addObserver { [weak self] found in
      guard let self else { return }
      if self.setting == .auto { self.apply(found?.description) }
    }
    watcher.addShellObserver { [weak self] shell in
      guard let self, self.shellSetting == .auto else { return }
      self.applyShell(Self.profile(of: shell, phoshVersion: self.watcher.phoshVersion))
    }
    bus?.withConnection { [weak self, weak bus] connection in
      self?.watcher.attach(to: connection)
      // Plasma's media controller, started after responderd, registers with kglobalaccel
      // unannounced, then reads every player, responderd's proxy among them: a new caller is
      // the moment to ask kglobalaccel again.
      bus?.callers?.addNewCallerObserver { [weak self] _ in self?.watcher.recheck() }
    }
  }

  public func stop() {
    watcher.detach()
  }

  private func apply(_ desktop: String?) {
    let changed = desktop != self.desktop
    self.desktop = desktop
    note = Self.note(desktop: desktop, setting: setting)
    keys.reportNotes = notes
    keys.setDesktop(desktop)
    guard changed || setting != .auto else { return }
    if let desktop {
      logger.info(
        "desktop: \(desktop) handles media keys: the devices responderd shares with it are left to it")
    } else if setting == .auto {
      logger.info("desktop: no desktop handling media keys on the session bus: shared devices are read")
    }
  }

  private func applyShell(_ profile: ShellProfile) {
    let changed = profile != shellProfile || shellNote.isEmpty
    shellProfile = profile
    shellNote = Self.shellNote(profile: profile, setting: shellSetting)
    keys.reportNotes = notes
    guard changed else { return }
    for observer in shellObservers { observer(profile) }
  }

  /// The lines the devices report adds: the desktop, and the shell profile when touch gestures are
  /// configured.
  private var notes: [String] { reportsShell ? [note, shellNote] : [note] }

  /// The shell profile of the shell found on the session bus (GNOME Shell is taken to be 40 or
  /// later: say `shell = "gnome-3"` for 3.36 and 3.38; phosh's profile is its release's, the
  /// newest when it does not say).
  static func profile(of shell: DesktopShell?, phoshVersion: String? = nil) -> ShellProfile {
    switch shell {
    case .gnome: .gnome
    case .phosh: .phosh(version: phoshVersion)
    case .kwin: .kde
    case nil: .none
    }
  }

  /// The touch line `responderctl devices` and `status` show.
  static func shellNote(profile: ShellProfile, setting: TouchGesturesConfig.ShellSetting) -> String {
    let origin =
      setting == .auto
      ? (profile == .none
        ? "no GNOME Shell, Phosh or KWin on the session bus; say shell = \"hyprland-touch\" for Hyprland's touch swipe"
        : "found on the session bus")
      : "shell = \"\(profile.rawValue)\""
    let rule =
      profile == .none
      ? "every touch is the gesture rules'"
      : "the shell takes \(profile.takes): no gesture rule acts on those"
    let name = profile == .none ? "" : "\(profile), "
    return "touch: shell profile \(profile.rawValue) (\(name)\(origin)): \(rule)"
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
