import struct AuthHub.AuthErrorCode

extension AuthErrorCode {
    /// The emulator could not bind because another process (or emulator) already listens on the
    /// requested host and port.
    public static let addressInUse = AuthErrorCode("addressInUse")
}
