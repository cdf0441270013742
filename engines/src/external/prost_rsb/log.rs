//! rsb's `log` as Protobuf messages (its `log.proto`).

use super::{fit, required, FourU32Message, Messages};
use crate::dataset::rsb::log::{Address, Log, Logs};
use serprof_api::CodecError;

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

impl Messages for Logs {
    type Message = LogsMessage;

    fn populate(&self) -> LogsMessage {
        let logs = self
            .logs
            .iter()
            .map(|l| LogMessage {
                address: Some(FourU32Message {
                    x0: l.address.x0.into(),
                    x1: l.address.x1.into(),
                    x2: l.address.x2.into(),
                    x3: l.address.x3.into(),
                }),
                identity: l.identity.clone(),
                userid: l.userid.clone(),
                date: l.date.clone(),
                request: l.request.clone(),
                code: l.code.into(),
                size: l.size,
            })
            .collect();
        LogsMessage { logs }
    }

    fn convert(message: LogsMessage) -> Result<Logs, CodecError> {
        let logs = message
            .logs
            .into_iter()
            .map(|l| {
                let a = required(l.address, "Log.address")?;
                Ok(Log {
                    address: Address {
                        x0: fit(a.x0, "Address.x0")?,
                        x1: fit(a.x1, "Address.x1")?,
                        x2: fit(a.x2, "Address.x2")?,
                        x3: fit(a.x3, "Address.x3")?,
                    },
                    identity: l.identity,
                    userid: l.userid,
                    date: l.date,
                    request: l.request,
                    code: fit(l.code, "Log.code")?,
                    size: l.size,
                })
            })
            .collect::<Result<_, CodecError>>()?;
        Ok(Logs { logs })
    }
}
