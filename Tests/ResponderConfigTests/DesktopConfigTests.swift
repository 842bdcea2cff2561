import ResponderConfig
import Testing

@Suite("[keys] desktop-handles-media-keys")
struct DesktopConfigTests {
  @Test("auto by default, and in the shipped config/config.toml")
  func defaults() throws {
    #expect(try ResponderdConfig.parse("", file: "empty.toml").keys.desktopHandlesMediaKeys == .auto)
    let shipped = try ResponderdConfig.load(path: repositoryPath("config/config.toml"))
    #expect(shipped.keys.desktopHandlesMediaKeys == .auto)
  }

  @Test("each value", arguments: DesktopMediaKeysSetting.allCases)
  func eachValue(_ setting: DesktopMediaKeysSetting) throws {
    let config = try ResponderdConfig.parse(
      "[keys]\ndesktop-handles-media-keys = \"\(setting.rawValue)\"\n", file: "x.toml")
    #expect(config.keys.desktopHandlesMediaKeys == setting)
  }

  @Test(
    "errors name the file, the line and the key",
    arguments: [
      (
        "[keys]\nenabled = true\ndesktop-handles-media-keys = \"gnome\"\n",
        "x.toml:3: 'keys.desktop-handles-media-keys' must be one of 'auto', 'yes', 'no', not 'gnome'"
      ),
      (
        "[keys]\ndesktop-handles-media-keys = true\n",
        "x.toml:2: 'keys.desktop-handles-media-keys' must be a string, not a boolean"
      ),
      (
        "[keys]\ndesktop-handles-media-key = \"no\"\n",
        "x.toml:2: unknown key 'desktop-handles-media-key' in [keys] (did you mean 'desktop-handles-media-keys'?)"
      ),
    ])
  func errors(_ text: String, _ message: String) {
    #expect { try ResponderdConfig.parse(text, file: "x.toml") } throws: { error in
      "\(error)" == message
    }
  }
}
