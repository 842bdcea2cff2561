/// `[keys] desktop-handles-media-keys`: whether the desktop takes the media keys of the devices
/// responderd shares with it (keyboards, remotes, a device another program holds, `grab =
/// "never"`). While it does, responderd does not read those devices: one press, one action
/// (docs/design.md#one-press-one-action).
public enum DesktopMediaKeysSetting: String, Hashable, Sendable, CaseIterable {
  /// Detected on the session bus: GNOME and Phosh (gsd-media-keys), KDE Plasma (kglobalaccel's
  /// `mediacontrol` component). Sway, Hyprland and other window managers cannot be detected.
  case auto
  /// The desktop handles them (a window manager binding the keys to playerctl, for example).
  case yes
  /// Nothing else handles them: responderd reads every device with a mapped key.
  case no
}
