//! The engine's options: how byte arrays are written and read, and whether nulls are written.

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
    /// The Jackson mapping exactly (see the [module](super) docs): base64 and nulls written. This
    /// is what `engines/tests/fixtures/orders-000-009.jsonl` holds.
    pub fn jackson() -> Options {
        Options {
            byte_arrays: ByteArrayCodec::Base64Table,
            write_nulls: true,
        }
    }
}
