import Foundation

/// Timing helpers shared by the benchmarks.
enum Measure {
    /// Runs `body` over and over for about `seconds` and answers operations per second.
    /// `body` gets the iteration number so callers can cycle through prepared inputs.
    static func rate(seconds: Double, _ body: (Int) throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        var iterations = 0
        while true {
            // Check the clock every 64 operations so reading it costs next to nothing.
            for _ in 0..<64 {
                try body(iterations)
                iterations += 1
            }
            if clock.now >= deadline { break }
        }
        return Double(iterations) / (clock.now - start).seconds
    }

    /// The asynchronous form of ``rate(seconds:_:)``.
    static func rateAsync(seconds: Double, _ body: (Int) async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        var iterations = 0
        while true {
            for _ in 0..<64 {
                try await body(iterations)
                iterations += 1
            }
            if clock.now >= deadline { break }
        }
        return Double(iterations) / (clock.now - start).seconds
    }

    /// CPU time (user + system) this process has used so far, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// Latency samples and their percentiles.
struct Latencies {
    private(set) var samples: [Double] = []

    mutating func add(_ seconds: Double) { samples.append(seconds) }
    mutating func merge(_ other: Latencies) { samples += other.samples }

    /// The `q` quantile (0...1) in milliseconds, nearest rank.
    func percentile(_ q: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let rank = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank] * 1000
    }
}

/// Prints a JSON object on standard output.
func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}
