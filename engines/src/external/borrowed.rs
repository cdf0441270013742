//! Borrowed decoding (rust_serialization_benchmark's `borrow` column): an engine's codec, with
//! a decode into the value's borrowed form besides, whose strings point into the payload. The
//! serde engines read it with the same call as their owned decode, typed with the borrowed form
//! (`postcard::from_bytes::<BorrowLogs>`), as rsb calls them.

use std::marker::PhantomData;

use crate::dataset::rsb::Borrowable;
use serprof_api::{Codec, CodecError, Engine, Value};

/// The call that reads the borrowed form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `postcard::from_bytes`.
    #[cfg(feature = "postcard")]
    Postcard,
    /// `rmp_serde::from_slice`.
    #[cfg(feature = "rmp-serde")]
    RmpSerde,
    /// `bincode::serde::borrow_decode_from_slice` with the standard configuration.
    #[cfg(feature = "bincode")]
    Bincode,
    /// bincode 1's `deserialize` with `bincode1::serialize`'s options (fixed-width integers).
    #[cfg(feature = "bincode1")]
    Bincode1,
}

impl Reader {
    /// Reads `bytes` into `T`'s borrowed form; bytes after the value are an error.
    // `bytes` is only read when an engine feature is on.
    #[allow(unused_variables)]
    fn read<'a, T: Borrowable>(self, bytes: &'a [u8]) -> Result<T::Borrowed<'a>, CodecError> {
        match self {
            #[cfg(feature = "postcard")]
            Reader::Postcard => postcard::from_bytes(bytes).map_err(CodecError::decode),
            #[cfg(feature = "rmp-serde")]
            Reader::RmpSerde => rmp_serde::from_slice(bytes).map_err(CodecError::decode),
            #[cfg(feature = "bincode")]
            Reader::Bincode => {
                let (value, read) =
                    bincode::serde::borrow_decode_from_slice(bytes, bincode::config::standard())
                        .map_err(CodecError::decode)?;
                super::whole(read, bytes.len())?;
                Ok(value)
            }
            #[cfg(feature = "bincode1")]
            Reader::Bincode1 => {
                use bincode1::Options;
                bincode1::DefaultOptions::new()
                    .with_fixint_encoding()
                    .deserialize(bytes)
                    .map_err(CodecError::decode)
            }
        }
    }

    /// The call, as the library names it.
    pub fn call(self) -> &'static str {
        match self {
            #[cfg(feature = "postcard")]
            Reader::Postcard => "postcard::from_bytes",
            #[cfg(feature = "rmp-serde")]
            Reader::RmpSerde => "rmp_serde::from_slice",
            #[cfg(feature = "bincode")]
            Reader::Bincode => "bincode::serde::borrow_decode_from_slice",
            #[cfg(feature = "bincode1")]
            Reader::Bincode1 => "bincode::Options::deserialize",
        }
    }
}

/// An engine's codec, and its reader of the borrowed form.
pub struct Borrowing<T> {
    inner: Box<dyn Codec<T>>,
    reader: Reader,
    _value: PhantomData<fn() -> T>,
}

impl<T: Borrowable + Value> Codec<T> for Borrowing<T> {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.inner.encode(value, out)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        self.inner.decode(bytes)
    }

    fn decodes_in_place(&self) -> bool {
        self.inner.decodes_in_place()
    }

    fn borrow(&mut self, bytes: &[u8]) -> Result<(), CodecError> {
        let value = self.reader.read::<T>(bytes)?;
        drop(std::hint::black_box(value));
        Ok(())
    }

    fn borrow_owned(&mut self, bytes: &[u8]) -> Result<T, CodecError> {
        self.reader.read::<T>(bytes).map(Into::into)
    }
}

/// `engine` with a borrowed decode through `reader` (the `ENGINE.borrow` configuration).
pub fn serde<T: Borrowable + Value>(engine: Engine<T>, reader: Reader) -> Engine<T> {
    engine
        .wrap(move |inner| Borrowing {
            inner,
            reader,
            _value: PhantomData,
        })
        .borrows()
}
