/// The version of responderd and responderctl.
public let responderdVersion = "0.1.0"
