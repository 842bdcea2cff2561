import EventLoop
import EventTime
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// The handlers a service's chain may name: known before it starts, from the service and the
/// components it runs. On the in-memory bus and virtual time.
@Suite struct HandlerRegistryTests {
  /// The daemon's service offers every handler its config accepts, so that the shipped daemon
  /// never leaves a configured handler out.
  @Test func theStandardServiceHasEveryHandlerTheConfigAccepts() throws {
    let (logger, _) = recordingLogger()
    let service = Service(
      config: ResponderdConfig(), loop: try EventLoop(), scheduler: VirtualScheduler(), logger: logger)
    StandardComponents.add(to: service)
    #expect(service.handlers.names == ResponderdConfig.knownHandlers.sorted())
  }

  /// A handler the chain names that neither the service nor a component brings is left out, and
  /// the log says so; the others keep the chain's order.
  @Test func aHandlerNoComponentBringsIsLeftOutOfTheChain() throws {
    let harness = try InMemoryService(config: "chain = [\"mpris\", \"command\", \"log\"]\n")
    harness.start()
    #expect(harness.service.chain.responders.map(\.responderName) == ["command", "log"])
    #expect(
      harness.log.all.contains(
        "notice: handler 'mpris' is not available in this build; left out of the chain"))
  }

  /// The component that brings a handler puts it in the chain, where the config says.
  @Test func aComponentsHandlerTakesItsPlaceInTheChain() throws {
    let harness = try InMemoryService(config: "chain = [\"log\", \"mpris\"]\n")
    harness.add(harness.service.mprisComponent(bus: harness.busComponent))
    #expect(harness.service.handlers.names == ["command", "log", "mpris"])
    harness.start()
    #expect(harness.service.chain.responders.map(\.responderName) == ["log", "mpris"])
    #expect(harness.log.all.contains("info: chain: log → mpris → dropped"))
  }

  /// Merged registries keep every handler; the built-in ones make the configured handlers.
  @Test func registriesMerge() throws {
    let own = HandlerRegistry("recorder") { context in
      EventLogHandler(settings: context.config.log, logger: context.logger)
    }
    let merged = HandlerRegistry.builtIn.merging(own)
    #expect(merged.names == ["command", "log", "recorder"])
    #expect(merged.contains("recorder") && !HandlerRegistry.builtIn.contains("recorder"))
    let (logger, _) = recordingLogger()
    let context = HandlerContext(
      config: ResponderdConfig(), scheduler: VirtualScheduler(), logger: logger,
      children: ChildProcesses(loop: try EventLoop()))
    let (handlers, missing) = merged.makeHandlers(for: ["log", "undo", "recorder", "command"], in: context)
    #expect(handlers.map(\.name) == ["log", "log", "command"])
    #expect(missing == ["undo"])
  }
}
