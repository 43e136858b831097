/// What the app should do after a failure: the one answer every SDK error gives
/// (``ZSMError/recovery``, ``FlowError/recovery``, a refused token request).
public enum Recovery: String, Sendable, Hashable {
    /// Try the same operation again (maybe later, maybe with other input).
    case retry
    /// Start over: enroll again, sign in again, or start a new flow (it expired, or its token
    /// was refused).
    case startOver
    /// Do not retry; show the message.
    case giveUp
}
