//! `bytes_json`: a hand-written JSON engine for the Order model, written the way Apache Fory JSON
//! is (seeds/004): a streaming writer straight into the output `Vec<u8>` and a cursor reader over
//! `&[u8]`, with null fields omitted by default. Its byte-array codec is an option
//! ([`ByteArrayCodec`]), so the `bytes` study measures the three states of the article (signed
//! decimal arrays, the two-pass branchy base64 decoder, the table-driven one) plus the `base64`
//! crate as a reference, all in one engine: a variant is an option, not a copy.
//!
//! The mapping is the Jackson mapping of DATASET.md section 5. The reader accepts any valid JSON
//! encoding of an Order (members in any order, whitespace, escapes, unknown members skipped and
//! validated, nulls present or absent for optional fields) and returns a [`ReadError`] with a
//! byte offset for anything else; it never panics and never allocates more than a small multiple
//! of the input length.
//!
//! Files, by direction: `write` (the writer), `cursor`, `strings` and `numbers` (JSON lexing),
//! `read` (the Order from the cursor), `base64_encode`, `base64_decode`, `base64_two_pass` and
//! `base64_table` (base64 both ways), `decimal_bytes` (signed decimal arrays). No module is named
//! `base64`: it would shadow the crate.
//!
//! What the engine does not keep: shared references. Like Jackson, it writes a shared value at
//! every use and reads back separate allocations ([`Order::shares_references`] is `false`).

mod base64_decode;
mod base64_encode;
mod base64_table;
mod base64_two_pass;
mod cursor;
mod decimal_bytes;
mod numbers;
mod read;
mod strings;
mod write;

pub use self::base64_decode::base64_decode;
pub use self::read::read_order;
pub use self::write::write_order;

use crate::codec::{Codec, CodecError};
use crate::model::Order;

/// How byte arrays (`Product::thumbnail`) are written and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteArrayCodec {
    /// An array of signed decimal numbers (`[-77,-1,99,...]`), as Java's `byte` and Fory JSON
    /// 1.7.0 wrote it: up to 5 characters a byte. Read back through the table-driven base64
    /// decoder when the input holds a string instead.
    DecimalSigned,
    /// Standard base64, decoded the way Fory JSON 1.7.0's first base64 reader did: a branchy
    /// validation pass, then a second pass re-reading every character through the escape check,
    /// the same if-chain, and a 4-way branch per digit.
    Base64TwoPass,
    /// Standard base64, decoded with one validation scan through a 256-entry table and a loop
    /// turning 4 characters into 3 bytes through the same table (Fory's fix); a string with a
    /// backslash takes the escape-aware slow path.
    Base64Table,
    /// Standard base64, decoded by the `base64` crate's `STANDARD` engine: the reference.
    Base64Crate,
}

impl ByteArrayCodec {
    /// Every codec, in the order of the article's states, then the reference.
    pub const ALL: [ByteArrayCodec; 4] = [
        ByteArrayCodec::DecimalSigned,
        ByteArrayCodec::Base64TwoPass,
        ByteArrayCodec::Base64Table,
        ByteArrayCodec::Base64Crate,
    ];

    /// Whether byte arrays are written as base64 strings (all but [`Self::DecimalSigned`]).
    pub fn is_base64(self) -> bool {
        self != ByteArrayCodec::DecimalSigned
    }
}

/// Options of the engine: a plain struct, every variant of the engine is a value of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Options {
    /// How byte arrays are written and read. The reader takes whichever form the input holds (an
    /// array or a string); this picks the writer and the base64 decoder. Default is
    /// [`ByteArrayCodec::Base64Table`], the fixed Fory JSON.
    pub byte_arrays: ByteArrayCodec,
    /// Whether absent optional fields (`notes`, `category.parent`) are written as `null`, as
    /// Jackson does, or omitted, as Fory JSON does. The reader accepts both. Default is `false`
    /// (omitted).
    pub write_nulls: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            byte_arrays: ByteArrayCodec::Base64Table,
            write_nulls: false,
        }
    }
}

impl Options {
    /// The Jackson mapping exactly (DATASET.md section 5): base64 and nulls written. This is what
    /// `engines/tests/fixtures/orders-000-009.jsonl` holds.
    pub fn jackson() -> Options {
        Options {
            byte_arrays: ByteArrayCodec::Base64Table,
            write_nulls: true,
        }
    }
}

/// Why an input is not a valid JSON encoding of an Order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at byte {offset}")]
pub struct ReadError {
    /// The byte of the input where the reader noticed.
    pub offset: usize,
    /// What is wrong, for a person.
    pub message: String,
}

impl ReadError {
    /// Every error goes through here: the error paths stay out of the hot loops.
    #[cold]
    #[inline(never)]
    pub(crate) fn new(offset: usize, message: impl Into<String>) -> ReadError {
        ReadError {
            offset,
            message: message.into(),
        }
    }
}

/// The engine behind the `bytes` study's `json-*` configurations.
#[derive(Debug, Clone, Copy, Default)]
pub struct BytesJson {
    pub options: Options,
}

impl Codec<Order> for BytesJson {
    fn encode(&mut self, value: &Order, out: &mut Vec<u8>) -> Result<(), CodecError> {
        write_order(value, &self.options, out);
        Ok(())
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Order, CodecError> {
        read_order(bytes, &self.options).map_err(|e| CodecError::DecodeAt {
            offset: e.offset,
            message: e.message,
        })
    }
}
