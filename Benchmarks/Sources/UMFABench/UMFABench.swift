import ArgumentParser

/// `umfa-bench`: the measurements behind docs/performance/. Each subcommand prints one JSON object
/// on standard output, which `scripts/bench.sh` collects and turns into the report.
@main
struct UMFABench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "umfa-bench",
        abstract: "UMFA benchmarks: library verification, crypto ceiling, HTTP load, a delaying proxy.",
        subcommands: [
            LibraryCommand.self, CeilingCommand.self, FloorCommand.self, LoadCommand.self, DelayProxyCommand.self,
        ])
}
