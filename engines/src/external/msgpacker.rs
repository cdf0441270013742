//! msgpacker: MessagePack through `Packable`/`Unpackable` impls of ours: structs as arrays of
//! their fields without a header (msgpacker's derive layout), byte arrays as `bin`, attributes as
//! a map in insertion order. msgpacker has no `Arc` (nor `Box`) impls, and its `Vec<T>` decoder
//! reserves the length it reads before checking it against the input, so every collection here
//! is decoded through `unpack_array`/`unpack_map`, which grow as elements arrive.

use std::sync::Arc;

use msgpacker::{pack_array, pack_bytes, pack_map, BufMut, Error, Packable, Unpackable};

use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    Product, Tags,
};
use serprof_api::{Codec, CodecError};

/// The version of msgpacker this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("msgpacker", "0.7.")
}

/// msgpacker with the impls below.
#[derive(Debug, Clone, Copy, Default)]
pub struct Msgpacker;

impl<T: Packable + Unpackable> Codec<T> for Msgpacker {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `Vec<u8>` is a `BufMut`: appends; packing cannot fail.
        value.pack(out);
        Ok(())
    }

    /// Packs into msgpacker's `EncoderSlice` over `out`, rsb's call. Its writes assume room
    /// for them; this build turns on msgpacker's `assertions` feature, which makes each write
    /// check it first (one comparison) and panic past the end: the panic becomes an error.
    /// (rsb's build leaves the feature off: a slice too small would be written past.)
    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        let room = out.len();
        let mut encoder = msgpacker::EncoderSlice::new(out);
        let packed =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| value.pack(&mut encoder)));
        Some(match packed {
            Ok(_) => Ok(encoder.into_written()),
            Err(_) => Err(CodecError::encode(format_args!(
                "the payload does not fit the slice of {room} bytes"
            ))),
        })
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let (read, value) = T::unpack_with_ofs(bytes).map_err(CodecError::decode)?;
        super::whole(read, bytes.len())?;
        Ok(value)
    }
}

/// msgpacker on any type that derives its traits (`MsgPacker`: `Packable`, `Unpackable`).
pub fn engine<T: serprof_api::Value + Packable + Unpackable>() -> serprof_api::Engine<T> {
    super::described("msgpacker", version(), "msgpacker", || Msgpacker).call(
        "Packable::pack (serialize: into one slice, msgpacker::EncoderSlice), \
             Unpackable::unpack_with_ofs",
    )
}

/// Reads values one after another from a payload, counting the bytes they take.
struct Fields<'a> {
    buf: &'a [u8],
    read: usize,
}

impl<'a> Fields<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Fields { buf, read: 0 }
    }

    fn rest(&self) -> Result<&'a [u8], Error> {
        self.buf.get(self.read..).ok_or(Error::BufferTooShort)
    }

    fn with<T>(
        &mut self,
        f: impl FnOnce(&'a [u8]) -> Result<(usize, T), Error>,
    ) -> Result<T, Error> {
        let (n, value) = f(self.rest()?)?;
        self.read += n;
        Ok(value)
    }

    fn take<T: Unpackable<Error = Error>>(&mut self) -> Result<T, Error> {
        self.with(T::unpack_with_ofs)
    }

    fn arc<T: Unpackable<Error = Error>>(&mut self) -> Result<Arc<T>, Error> {
        self.take().map(Arc::new)
    }

    fn vec<T: Unpackable<Error = Error>>(&mut self) -> Result<Vec<T>, Error> {
        self.with(msgpacker::unpack_array::<T, Vec<T>>)
    }

    fn done<T>(&self, value: T) -> Result<(usize, T), Error> {
        Ok((self.read, value))
    }
}

/// A shared value inside a collection, unpacked into its own allocation.
struct Shared<T>(Arc<T>);

impl<T: Unpackable<Error = Error>> Unpackable for Shared<T> {
    type Error = Error;

    fn unpack_with_ofs(buf: &[u8]) -> Result<(usize, Self), Error> {
        T::unpack_with_ofs(buf).map(|(n, v)| (n, Shared(Arc::new(v))))
    }

    fn unpack_iter<I: IntoIterator<Item = u8>>(bytes: I) -> Result<(usize, Self), Error> {
        T::unpack_iter(bytes).map(|(n, v)| (n, Shared(Arc::new(v))))
    }
}

/// `Unpackable` from a `unpack_with_ofs` body over [`Fields`]; `unpack_iter` collects the bytes
/// first (the lazy path, which the harness never takes).
macro_rules! unpackable {
    ($t:ty, |$f:ident| $body:expr) => {
        impl Unpackable for $t {
            type Error = Error;

            fn unpack_with_ofs(buf: &[u8]) -> Result<(usize, Self), Error> {
                let mut $f = Fields::new(buf);
                let value = $body;
                $f.done(value)
            }

            fn unpack_iter<I: IntoIterator<Item = u8>>(bytes: I) -> Result<(usize, Self), Error> {
                Self::unpack_with_ofs(&bytes.into_iter().collect::<Vec<u8>>())
            }
        }
    };
}

impl Packable for Order {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        self.id.pack(buf)
            + self.customer.as_ref().pack(buf)
            + pack_array(buf, &self.lines)
            + self.status.pack(buf)
            + self.created.pack(buf)
            + self.shipping_address.as_ref().pack(buf)
            + self.attributes.pack(buf)
            + self.notes.pack(buf)
    }
}

unpackable!(Order, |f| Order {
    id: f.take()?,
    customer: f.arc()?,
    lines: f.vec()?,
    status: f.take()?,
    created: f.take()?,
    shipping_address: f.arc()?,
    attributes: f.take()?,
    notes: f.take()?,
});

impl Packable for Customer {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        self.id.pack(buf)
            + self.first_name.pack(buf)
            + self.last_name.pack(buf)
            + self.email.pack(buf)
            + self.date_of_birth.pack(buf)
            + self.vip.pack(buf)
            + pack_array(buf, self.addresses.iter().map(|a| a.as_ref()))
    }
}

unpackable!(Customer, |f| Customer {
    id: f.take()?,
    first_name: f.take()?,
    last_name: f.take()?,
    email: f.take()?,
    date_of_birth: f.take()?,
    vip: f.take()?,
    addresses: f
        .vec::<Shared<Address>>()?
        .into_iter()
        .map(|a| a.0)
        .collect(),
});

impl Packable for Address {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        self.street.pack(buf) + self.city.pack(buf) + self.zip.pack(buf) + self.country.pack(buf)
    }
}

unpackable!(Address, |f| Address {
    street: f.take()?,
    city: f.take()?,
    zip: f.take()?,
    country: f.take()?,
});

impl Packable for OrderLine {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        self.product.as_ref().pack(buf)
            + self.quantity.pack(buf)
            + self.unit_price.pack(buf)
            + self.discount.pack(buf)
    }
}

unpackable!(OrderLine, |f| OrderLine {
    product: f.arc()?,
    quantity: f.take()?,
    unit_price: f.take()?,
    discount: f.take()?,
});

impl Packable for Product {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        self.sku.pack(buf)
            + self.name.pack(buf)
            + self.description.pack(buf)
            + self.category.as_ref().pack(buf)
            + self.price.pack(buf)
            + self.weight_grams.pack(buf)
            + self.tags.pack(buf)
            + self.thumbnail.pack(buf)
    }
}

unpackable!(Product, |f| Product {
    sku: f.take()?,
    name: f.take()?,
    description: f.take()?,
    category: f.arc()?,
    price: f.take()?,
    weight_grams: f.take()?,
    tags: f.take()?,
    thumbnail: f.take()?,
});

impl Packable for Category {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        // `Option<&Category>`: nil, or the parent.
        self.id.pack(buf) + self.name.pack(buf) + self.parent.as_deref().pack(buf)
    }
}

unpackable!(Category, |f| Category {
    id: f.take()?,
    name: f.take()?,
    parent: f.take::<Option<Category>>()?.map(Arc::new),
});

impl Packable for OrderStatus {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        (*self as u8).pack(buf)
    }
}

unpackable!(OrderStatus, |f| {
    let tag: u8 = f.take()?;
    OrderStatus::ALL
        .get(usize::from(tag))
        .copied()
        .ok_or(Error::InvalidEnumVariant)?
});

impl Packable for Decimal {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        self.cents.pack(buf)
    }
}

unpackable!(Decimal, |f| Decimal::from_cents(f.take()?));

impl Packable for Attributes {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        pack_map(buf, self.0.iter())
    }
}

unpackable!(Attributes, |f| Attributes(
    f.with(msgpacker::unpack_map::<String, String, _>)?
));

impl Packable for Tags {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        pack_array(buf, &self.0)
    }
}

unpackable!(Tags, |f| Tags(
    f.with(msgpacker::unpack_array::<String, _>)?
));

impl Packable for ByteArray {
    fn pack<T: BufMut>(&self, buf: &mut T) -> usize {
        pack_bytes(buf, &self.0)
    }
}

unpackable!(ByteArray, |f| ByteArray(
    f.with(msgpacker::unpack_bytes)?.to_vec()
));

// What msgpacker cannot do for the Order model: it has no `Arc`/`Box` impls (hence the impls
// above, which write each shared value in full: shared references are not kept); its `Vec<T>`
// decoder reserves an untrusted length up front (avoided above); structs are bare field
// sequences without an array header or names, so a reader needs the same layout; prices are
// the cents as an i64.
