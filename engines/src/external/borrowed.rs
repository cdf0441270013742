//! Borrowed decoding (rust_serialization_benchmark's `borrow` column): an engine's codec, with
//! a decode into the value's borrowed form besides, whose strings point into the payload. Each
//! engine reads it with the same call as its owned decode, typed with the borrowed form
//! (`postcard::from_bytes::<BorrowLogs>`, `bitcode::Buffer::decode::<BorrowLogs>`), as rsb
//! calls them.

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
    /// bitcode's derive: `bitcode::Buffer::decode` with a reused buffer.
    #[cfg(feature = "bitcode")]
    Bitcode,
    /// `wincode::deserialize_exact`.
    #[cfg(feature = "wincode")]
    Wincode,
    /// `minicbor::decode`.
    #[cfg(feature = "minicbor")]
    Minicbor,
    /// msgpacker's `UnpackableBorrowed::unpack_with_ofs`.
    #[cfg(feature = "msgpacker")]
    Msgpacker,
    /// bilrost's `BorrowedMessage::decode_borrowed`.
    #[cfg(feature = "bilrost")]
    Bilrost,
}

impl Reader {
    /// Reads `bytes` into `T`'s borrowed form (`buffer`: bitcode's, reused); bytes after the
    /// value are an error.
    // `bytes` and `buffer` are only read when an engine feature is on.
    #[allow(unused_variables)]
    fn read<'a, T: Borrowable>(
        self,
        bytes: &'a [u8],
        buffer: &mut Buffer,
    ) -> Result<T::Borrowed<'a>, CodecError> {
        match self {
            #[cfg(feature = "bitcode")]
            Reader::Bitcode => buffer.decode(bytes).map_err(CodecError::decode),
            #[cfg(feature = "wincode")]
            Reader::Wincode => wincode::deserialize_exact(bytes).map_err(CodecError::decode),
            #[cfg(feature = "minicbor")]
            Reader::Minicbor => {
                let mut d = minicbor::Decoder::new(bytes);
                let value = d.decode().map_err(CodecError::decode)?;
                super::whole(d.position(), bytes.len())?;
                Ok(value)
            }
            #[cfg(feature = "msgpacker")]
            Reader::Msgpacker => {
                let (read, value) =
                    <T::Borrowed<'a> as msgpacker::UnpackableBorrowed<'a>>::unpack_with_ofs(bytes)
                        .map_err(CodecError::decode)?;
                super::whole(read, bytes.len())?;
                Ok(value)
            }
            // `decode_borrowed` reads the whole slice: bytes after the message are an error.
            #[cfg(feature = "bilrost")]
            Reader::Bilrost => {
                <T::Borrowed<'a> as bilrost::BorrowedMessage<'a>>::decode_borrowed(bytes)
                    .map_err(CodecError::decode)
            }
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
            #[cfg(feature = "bitcode")]
            Reader::Bitcode => "bitcode::Buffer::decode",
            #[cfg(feature = "wincode")]
            Reader::Wincode => "wincode::deserialize_exact",
            #[cfg(feature = "minicbor")]
            Reader::Minicbor => "Decoder::decode",
            #[cfg(feature = "msgpacker")]
            Reader::Msgpacker => "UnpackableBorrowed::unpack_with_ofs",
            #[cfg(feature = "bilrost")]
            Reader::Bilrost => "BorrowedMessage::decode_borrowed",
        }
    }
}

/// bitcode's reusable buffer, where bitcode is built.
#[cfg(feature = "bitcode")]
type Buffer = bitcode::Buffer;
/// Nothing, without bitcode.
#[cfg(not(feature = "bitcode"))]
type Buffer = ();

/// An engine's codec, and its reader of the borrowed form.
pub struct Borrowing<T> {
    inner: Box<dyn Codec<T>>,
    reader: Reader,
    buffer: Buffer,
    _value: PhantomData<fn() -> T>,
}

impl<T: Borrowable + Value> Codec<T> for Borrowing<T> {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.inner.encode(value, out)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        self.inner.encode_to_slice(value, out)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        self.inner.decode(bytes)
    }

    fn decodes_in_place(&self) -> bool {
        self.inner.decodes_in_place()
    }

    fn borrow(&mut self, bytes: &[u8]) -> Result<(), CodecError> {
        let value = self.reader.read::<T>(bytes, &mut self.buffer)?;
        drop(std::hint::black_box(value));
        Ok(())
    }

    fn borrow_owned(&mut self, bytes: &[u8]) -> Result<T, CodecError> {
        self.reader
            .read::<T>(bytes, &mut self.buffer)
            .map(Into::into)
    }
}

/// `engine` with a borrowed decode through `reader` (the `ENGINE.borrow` configuration).
pub fn serde<T: Borrowable + Value>(engine: Engine<T>, reader: Reader) -> Engine<T> {
    engine
        .wrap(move |inner| Borrowing {
            inner,
            reader,
            buffer: Buffer::default(),
            _value: PhantomData,
        })
        .borrows()
}
