import AuthHub

/// How `accounts:update` should treat one profile attribute (display name or photo URL).
public enum FirebaseProfileChange: Sendable, Hashable {
    /// Leave it as it is (the field is not sent).
    case unchanged
    /// Set it to a value.
    case set(String)
    /// Remove it (sent in `deleteAttribute` as `DISPLAY_NAME` / `PHOTO_URL`).
    case remove
}
