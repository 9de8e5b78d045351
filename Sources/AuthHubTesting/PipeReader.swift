import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a child process's output for tests without trapping. On Linux, corelibs Foundation's
/// `FileHandle.readData(ofLength:)` and `readDataToEndOfFile()` end in a `try!` that traps when a
/// `read` is interrupted by a signal (`EINTR`) — and a test process that runs children receives
/// `SIGCHLD` all the time. These functions call `read(2)` themselves and retry interrupted reads.
public enum PipeReader {
    /// Everything up to end of file.
    public static func readAll(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }

    /// One line (without its newline), or what there is before end of file; at most `limit` bytes.
    public static func readLine(_ handle: FileHandle, limit: Int = 65_536) -> String {
        var line = Data()
        var byte: UInt8 = 0
        while line.count < limit {
            let count = read(handle.fileDescriptor, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { break }
                line.append(byte)
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// What is there to read now (blocking until something is), or empty at end of file.
    public static func readChunk(_ handle: FileHandle, limit: Int = 65_536) -> Data {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Data(buffer[0..<count]) }
            if count == 0 || errno != EINTR { return Data() }
        }
    }
}
