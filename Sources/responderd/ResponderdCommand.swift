import ArgumentParser
import EventLoop
import Logging
import Responderd

#if canImport(Glibc)
  import Glibc
#endif

/// `responderd`: the user-session service.
@main
struct ResponderdCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "responderd",
    abstract: "Headset/media keys, MPRIS and shakes as iOS-style events for a chain of responders.",
    discussion: """
      Runs in the foreground as the user (never as root) and logs to stderr. Reads
      $XDG_CONFIG_HOME/responderd/config.toml, else /etc/xdg/responderd/config.toml, else built-in
      defaults. Stops cleanly on SIGTERM or SIGINT.
      """,
    version: responderdVersion)

  @Option(name: .long, help: "Read the config from this file instead of the default places.")
  var config: String?

  @Option(name: .customLong("check-config"), help: "Check a config file, print what is wrong, and exit.")
  var checkConfig: String?

  @Option(name: .long, help: "Log level (trace, debug, info, notice, warning, error); overrides the config.")
  var logLevel: String?

  @Option(name: .long, help: "When started as root: the user to run as (default: nobody).")
  var user = "nobody"

  @Flag(
    name: .customLong("allow-root"),
    help: "Stay root when started as root (test harnesses in containers only; never in a session).")
  var allowRoot = false

  func run() throws {
    if let path = checkConfig {
      do {
        let loaded = try ResponderdConfig.load(path: path)
        print("\(path): OK (chain: \(loaded.chain.joined(separator: " → ")))")
        return
      } catch {
        writeText("\(error)\n", to: 2)
        throw ExitCode(1)
      }
    }

    let loaded: ResponderdConfig
    do {
      if let path = config ?? ResponderdConfig.defaultPath() {
        loaded = try ResponderdConfig.load(path: path)
      } else {
        loaded = ResponderdConfig()
      }
    } catch {
      writeText("responderd: refusing to start: \(error)\n", to: 2)
      throw ExitCode(78)  // EX_CONFIG
    }

    let levelName = logLevel ?? loaded.logging.level
    guard let level = Logger.Level(rawValue: levelName) else {
      writeText("responderd: unknown log level '\(levelName)'\n", to: 2)
      throw ExitCode(64)
    }
    LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level) }
    let logger = Logger(label: "responderd")

    if geteuid() == 0 && allowRoot {
      logger.warning("running as root because of --allow-root: meant for test containers only")
    } else if geteuid() == 0 {
      do {
        try dropPrivileges(to: user)
        logger.warning(
          "started as root: now running as '\(user)' (uid \(getuid())); responderd is meant to run as the session user (systemctl --user)"
        )
      } catch {
        logger.critical("started as root and could not drop privileges: \(error)")
        throw ExitCode(77)  // EX_NOPERM
      }
    }

    let loop = try EventLoop()
    let service = Service(config: loaded, loop: loop, logger: logger)
    Components.addStandard(to: service)
    logger.info("responderd \(responderdVersion) starting (config: \(loaded.file))")
    try service.run()
    logger.info("responderd stopped")
  }
}
