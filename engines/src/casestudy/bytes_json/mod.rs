//! `bytes_json`: a hand-written JSON engine for the Order model, written the way Apache Fory JSON
//! is (Ingo Kegel, "How we made Apache Fory JSON 4.5 times faster", ej-technologies blog,
//! 2026-09-07): a streaming writer straight into the output `Vec<u8>` and a cursor reader over
//! `&[u8]`, with null fields omitted by default. Its byte-array codec is an option
//! ([`ByteArrayCodec`]), so the `bytes` study measures the three states of the article (signed
//! decimal arrays, the two-pass branchy base64 decoder, the table-driven one) plus the `base64`
//! crate as a reference, all in one engine: a variant is an option, not a copy.
//!
//! The mapping is the Jackson mapping: the JSON that Jackson's default `ObjectMapper` writes for
//! the Java model of the Order graph. Members come in model order with camelCase names, enums as
//! their constant names, timestamps as epoch milliseconds, prices as decimal numbers that keep
//! their scale (`2.00`), `discount` as Java's shortest round-trip text (`0.24`, `0.0`), byte
//! arrays as standard base64 strings, and absent optional fields as `null` ([`Options::jackson`];
//! the default omits them, as Fory JSON does). The reader accepts any valid JSON encoding of an
//! Order (members in any order, whitespace, escapes, unknown members skipped and validated, nulls
//! present or absent for optional fields) and returns a [`ReadError`] with a byte offset for
//! anything else; it never panics and never allocates more than a small multiple of the input
//! length.
//!
//! Files, by direction: `options` and `error` (what the engine is told and what it reports),
//! `write` (the writer), `cursor`, `strings` and `numbers` (JSON lexing, over the shared
//! `casestudy::json_text`), `read` (the Order from the cursor), `base64` (base64 both ways: the
//! dispatcher `base64/mod.rs` over the decoders `table`, `two_pass` and `reference`, the writer
//! `encode`, and their shared `common`), `decimal_bytes` (signed decimal arrays). Dependencies
//! point one way: this file only declares the modules, re-exports their public items and
//! implements [`BytesJson`], so no module imports anything defined here; `options` and `error`
//! import nothing of the engine. The module `base64` shadows the crate of that name inside the
//! engine, so the engine's files name the crate `::base64`.
//!
//! What the engine does not keep: shared references. Like Jackson, it writes a shared value at
//! every use and reads back separate allocations ([`Order::shares_references`] is `false`).

#[doc(hidden)]
pub mod base64;
#[doc(hidden)]
pub mod cursor;
#[doc(hidden)]
pub mod decimal_bytes;
mod error;
#[doc(hidden)]
pub mod numbers;
mod options;
mod read;
#[doc(hidden)]
pub mod strings;
mod write;

pub use self::base64::base64_decode;
pub use self::error::ReadError;
pub use self::options::{ByteArrayCodec, Options};
pub use self::read::read_order;
/// One string escape (`\n`, `\uXXXX` with its surrogate pair), shared with the corpus study's
/// reference parser.
pub use self::strings::parse_escape;
pub use self::write::write_order;

use crate::model::Order;
use serprof_api::{Codec, CodecError};

/// The engine behind the `bytes` study's `json-*` configurations.
#[derive(Debug, Clone, Copy, Default)]
pub struct BytesJson {
    /// How it writes byte arrays, numbers and maps.
    pub options: Options,
}

impl Codec<Order> for BytesJson {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        write_order(value, &self.options, out);
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        read_order(bytes, &self.options).map_err(|e| CodecError::decode_at(e.offset, e.message))
    }
}
