import InputCodes
import RemoteControl
import ResponderConfig
import ResponderCore
import Testing

@Suite("[keys] config section")
struct KeysConfigTests {
  @Test("no [keys] section: the defaults of docs/design.md#keys-and-the-click-grammar")
  func defaults() throws {
    let config = try ResponderdConfig.parse("", file: "empty.toml")
    #expect(config.keys.enabled)
    #expect(config.keys.settings == KeySettings.standard)
    #expect(config.keys.settings.clickInterval == 0.4)
    #expect(config.keys.settings.holdThreshold == 0.5)
  }

  @Test("the defaults spelled out give the built-in settings")
  func defaultsSpelledOut() throws {
    let config = try ResponderdConfig.parse(KeysConfigTests.defaultSection, file: "defaults.toml")
    #expect(config.keys.settings == KeySettings.standard)
  }

  @Test("the shipped config/config.toml spells out the built-in [keys] defaults")
  func shippedConfig() throws {
    let shipped = try ResponderdConfig.load(path: repositoryPath("config/config.toml"))
    #expect(shipped.keys == ResponderdConfig().keys)
    #expect(shipped.keys.settings.deviceRules == DeviceRule.jackDefaults)
  }

  /// The [keys] section as the default config spells it out.
  static let defaultSection = """
    [keys]
    enabled = true
    click-interval = 0.4
    hold-threshold = 0.5
    # The one-button headset key on every device.
    headset-keys = ["KEY_MEDIA"]

    # Device rules, in order; these replace the built-in ones. A wired headset's button arrives as
    # KEY_PLAYPAUSE through the sound card's jack device: give it the click grammar there.

    """
    + [#"phys = "ALSA""#, #"name = "*Headset Jack""#, #"name = "*Headphone Mic""#, #"name = "*Headphone""#]
    .map { "[[keys.device]]\n\($0)\nheadset-keys = [\"KEY_PLAYPAUSE\"]\n" }.joined()

  @Test("every setting")
  func everySetting() throws {
    let config = try ResponderdConfig.parse(
      """
      [keys]
      enabled = false
      click-interval = 0.3
      hold-threshold = 1
      headset-keys = ["KEY_MEDIA", "BTN_0", "0x101", "330"]
      [[keys.device]]
      id = "0003:046d:*"
      ignore = true
      [[keys.device]]
      name = "Logitech USB Headset*"
      phys = "usb-*"
      ignore = false
      headset-keys = ["KEY_PLAYPAUSE"]
      keys = { KEY_PLAY = "play", KEY_STOPCD = "togglePlayPause", 0x104 = "next-track" }
      """, file: "all.toml")
    let keys = config.keys
    #expect(!keys.enabled)
    #expect(keys.settings.clickInterval == 0.3)
    #expect(keys.settings.holdThreshold == 1.0)
    #expect(keys.settings.headsetKeys == [226, 0x100, 0x101, 330])
    #expect(
      keys.settings.deviceRules == [
        DeviceRule(match: DeviceMatch(bustype: 3, vendor: 0x046d), ignore: true),
        DeviceRule(
          match: DeviceMatch(name: "Logitech USB Headset*", phys: "usb-*"), ignore: false,
          headsetKeys: [InputCode.KEY_PLAYPAUSE],
          keys: [
            207: .onPress(.remoteControlPlay), 166: .onPress(.remoteControlTogglePlayPause),
            0x104: .skip(.forward),
          ]),
      ])
    let headset = InputDeviceIdentity(
      name: "Logitech USB Headset H340", bustype: 3, vendor: 0x046d, product: 0x0a38,
      phys: "usb-0000:00:14.0-2/input3")
    let profile = keys.settings.profile(for: headset)
    #expect(!profile.isIgnored)
    #expect(profile.role(of: InputCode.KEY_PLAYPAUSE) == .headsetButton)
    #expect(profile.role(of: 207) == .onPress(.remoteControlPlay))
    #expect(
      keys.settings.profile(for: InputDeviceIdentity(name: "K120", bustype: 3, vendor: 0x046d)).isIgnored)
  }

  @Test("grab per rule: the last matching rule that sets it wins, and is named as the reason")
  func grabPerRule() throws {
    let config = try ResponderdConfig.parse(
      """
      [[keys.device]]
      name = "Logitech*"
      grab = "always"
      [[keys.device]]
      id = "0003:046d:0a38"
      grab = "never"
      [[keys.device]]
      phys = "ALSA"
      headset-keys = ["KEY_PLAYPAUSE"]
      """, file: "grab.toml")
    let settings = config.keys.settings
    #expect(settings.deviceRules.map(\.grab) == [.always, .never, nil])
    let headset = InputDeviceIdentity(
      name: "Logitech USB Headset H340", bustype: 3, vendor: 0x046d, product: 0x0a38)
    let headsetProfile = settings.profile(for: headset)
    #expect(headsetProfile.grab == .never)
    let never = settings.ownership(of: headsetProfile, headsetClass: .usbAudio, isKeyboard: false)
    #expect(!never.grab)
    #expect(never.explanation == "rule (id 0003:046d:0a38): grab = \"never\"")
    let webcam = InputDeviceIdentity(
      name: "Logitech Webcam C920", bustype: 3, vendor: 0x046d, product: 0x082d)
    let always = settings.ownership(of: settings.profile(for: webcam), headsetClass: nil, isKeyboard: false)
    #expect(always.grab && always.code == "rule")
    let jack = InputDeviceIdentity(name: "HDA Intel PCH Headphone Mic", phys: "ALSA")
    #expect(settings.profile(for: jack).grab == .auto)
    let auto = settings.ownership(
      of: settings.profile(for: jack), headsetClass: HeadsetClass.of(jack, usbInterfaces: nil),
      isKeyboard: false)
    #expect(auto.grab && auto.explanation == "headset class: the sound card's jack input")
  }

  @Test(
    "errors name the file, the line and what was expected",
    arguments: [
      (
        "[keys]\nclick-intervall = 0.3\n",
        "x.toml:2: unknown key 'click-intervall' in [keys] (did you mean 'click-interval'?)"
      ),
      (
        "[keys]\nhold-threshold = \"long\"\n",
        "x.toml:2: 'keys.hold-threshold' must be a number, not a string"
      ),
      (
        "[keys]\nclick-interval = 0\n",
        "x.toml:2: 'keys.click-interval' must be between 0.01 and 5.0, not 0.0"
      ),
      (
        "[keys]\n\nheadset-keys = [\"KEY_MEDIAA\"]\n",
        "x.toml:3: unknown key 'KEY_MEDIAA' in 'keys.headset-keys' (did you mean 'KEY_MEDIA'?); use a KEY_ name or a key code number"
      ),
      (
        "[[keys.device]]\nignore = true\n",
        "x.toml:1: [[keys.device]] rule keys.device[0] needs 'name', 'phys' or 'id' to match devices"
      ),
      (
        "[[keys.device]]\nname = \"x\"\n[[keys.device]]\nid = \"usb\"\n",
        "x.toml:4: 'keys.device[1].id' must be \"bus:vendor:product\" in hex (\"0003:046d:0a38\", * for any), not 'usb'"
      ),
      (
        "[[keys.device]]\nname = \"x\"\nignored = true\n",
        "x.toml:3: unknown key 'ignored' in [keys.device[0]] (did you mean 'ignore'?)"
      ),
      (
        "[[keys.device]]\nname = \"x\"\nkeys = { KEY_PLAY = \"pauze\" }\n",
        "x.toml:3: unknown role 'pauze' (did you mean 'pause'?); known: togglePlayPause, play, pause, stop, nextTrack, previousTrack, seekForward, seekBackward, headset"
      ),
      (
        "[[keys.device]]\nname = \"x\"\nkeys = { KEY_PLAY = 3 }\n",
        "x.toml:3: 'keys.device[0].keys.KEY_PLAY' must be a role name, not an integer"
      ),
      ("[keys]\nenabled = 1\n", "x.toml:2: 'keys.enabled' must be true or false, not an integer"),
      (
        "[[keys.device]]\nname = \"x\"\n\ngrab = \"nevr\"\n",
        "x.toml:4: 'keys.device[0].grab' must be one of 'auto', 'always', 'never', not 'nevr' (did you mean 'never'?)"
      ),
      (
        "[[keys.device]]\nname = \"x\"\ngrab = true\n",
        "x.toml:3: 'keys.device[0].grab' must be a string, not a boolean"
      ),
    ])
  func errors(text: String, message: String) {
    #expect {
      try ResponderdConfig.parse(text, file: "x.toml")
    } throws: { error in
      "\(error)" == message
    }
  }
}

/// A path in the repository ("config/config.toml").
func repositoryPath(_ relative: String) -> String {
  var path = #filePath
  while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Tests") { path = String(path[..<slash]) }
  return String(path.dropLast("/Tests".count)) + "/" + relative
}
