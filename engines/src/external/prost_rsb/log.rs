//! rsb's `log` as Protobuf messages (its `log.proto`).

use super::{required, FourU32Message, Messages};

/// A log (rsb's `Log`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogMessage {
    /// The client's address.
    #[prost(message, optional, tag = "1")]
    pub address: Option<FourU32Message>,
    /// The identity.
    #[prost(string, tag = "2")]
    pub identity: String,
    /// The user.
    #[prost(string, tag = "3")]
    pub userid: String,
    /// The date.
    #[prost(string, tag = "4")]
    pub date: String,
    /// The request line.
    #[prost(string, tag = "5")]
    pub request: String,
    /// The status.
    #[prost(uint32, tag = "6")]
    pub code: u32,
    /// The size.
    #[prost(uint64, tag = "7")]
    pub size: u64,
}

/// Every log (rsb's `Logs`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogsMessage {
    /// The logs.
    #[prost(message, repeated, tag = "1")]
    pub logs: Vec<LogMessage>,
}

log_messages! {
    logs: LogsMessage, log: LogMessage, address: FourU32Message,
    some: Some, take: required,
    rest: {},
}
