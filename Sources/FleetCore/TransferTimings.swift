/// libcurl's timing breakdown of one HTTP transfer, in microseconds from the start of the transfer.
///
/// Each figure is cumulative, as libcurl reports it (dns ≤ connect ≤ tls ≤ firstByte ≤ total
/// whenever each phase happened); zero when the phase did not happen (a reused connection has no
/// DNS, connect or TLS). One type for the engine that measures it (`HTTPTimings`) and the
/// recorder that keeps it (`RequestBreakdown`), so nothing converts between twins.
public struct TransferTimings: Sendable, Codable, Equatable {
    public var dnsMicros: Int64
    public var connectMicros: Int64
    public var tlsMicros: Int64
    public var firstByteMicros: Int64
    public var totalMicros: Int64

    public init(dnsMicros: Int64 = 0, connectMicros: Int64 = 0, tlsMicros: Int64 = 0,
                firstByteMicros: Int64 = 0, totalMicros: Int64 = 0) {
        self.dnsMicros = dnsMicros
        self.connectMicros = connectMicros
        self.tlsMicros = tlsMicros
        self.firstByteMicros = firstByteMicros
        self.totalMicros = totalMicros
    }
}
