//! rsb's `log` as rust-protobuf's generated messages (`engines/schemas/rsb_log.proto`).

use super::{required, Messages};
use protobuf::MessageField;

/// The code protobuf-codegen 3.7.2 generates from `engines/schemas/rsb_log.proto`.
#[path = "../protobuf_gen/rsb_log.rs"]
pub mod messages;

use messages::{Address, Log, Logs};

log_messages! {
    logs: Logs, log: Log, address: Address,
    some: MessageField::some, take: required,
    rest: { ..Default::default() },
}
