//! speedy: a fast, non-self-describing binary format (fixed-width little-endian integers, u32
//! lengths), through `Readable`/`Writable` impls of ours: speedy has no `Arc` impls, so the
//! types holding one cannot derive them.

use std::sync::Arc;

use speedy::{Context, Endianness, Readable, Reader, Writable, Writer};

use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    Product, Tags,
};
use serprof_api::{Codec, CodecError};

/// The version of speedy this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("speedy", "0.8.")
}

/// speedy, little endian.
#[derive(Debug, Clone, Copy, Default)]
pub struct Speedy;

const CONTEXT: Endianness = Endianness::LittleEndian;

impl<T: Writable<Endianness> + for<'a> Readable<'a, Endianness>> Codec<T> for Speedy {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // One sizing pass, then the value written in place after what the buffer holds.
        let n = Writable::<Endianness>::bytes_needed(value).map_err(CodecError::encode)?;
        let start = out.len();
        out.resize(start + n, 0);
        value
            .write_to_buffer_with_ctx(CONTEXT, &mut out[start..])
            .map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        // What `write_to_buffer_with_ctx` does (one sizing pass, then the writes into the
        // slice), with the payload's length kept: speedy's call does not return it.
        let written = Writable::<Endianness>::bytes_needed(value).and_then(|n| {
            let payload = out.get_mut(..n).ok_or_else(|| too_small(n))?;
            value.write_to(&mut SliceWriter {
                payload,
                at: 0,
                context: CONTEXT,
            })?;
            Ok(n)
        });
        Some(written.map(|n| &out[..n]).map_err(CodecError::encode))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let (value, read) = T::read_with_length_from_buffer_with_ctx(CONTEXT, bytes);
        let value = value.map_err(CodecError::decode)?;
        super::whole(read, bytes.len())?;
        Ok(value)
    }
}

/// speedy on any type that derives its traits (`Writable`, `Readable`), little endian.
pub fn engine<T: serprof_api::Value + Writable<Endianness> + for<'a> Readable<'a, Endianness>>(
) -> serprof_api::Engine<T> {
    super::described("speedy", version(), "speedy", || Speedy).call(
        "Writable::bytes_needed + write_to_buffer_with_ctx (serialize: bytes_needed + write_to \
         into one slice), read_with_length_from_buffer_with_ctx",
    )
}

/// speedy's error for a slice shorter than the `n` bytes of the payload.
#[cold]
fn too_small(n: usize) -> speedy::Error {
    speedy::Error::custom(format_args!(
        "the slice is shorter than the payload's {n} bytes"
    ))
}

/// A speedy writer into a slice exactly the payload's size (`bytes_needed`), little endian.
struct SliceWriter<'a> {
    payload: &'a mut [u8],
    at: usize,
    context: Endianness,
}

impl Writer<Endianness> for SliceWriter<'_> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), speedy::Error> {
        let end = self.at + bytes.len();
        let into = self
            .payload
            .get_mut(self.at..end)
            .ok_or_else(|| too_small(end))?;
        into.copy_from_slice(bytes);
        self.at = end;
        Ok(())
    }

    #[inline]
    fn context(&self) -> &Endianness {
        &self.context
    }

    #[inline]
    fn context_mut(&mut self) -> &mut Endianness {
        &mut self.context
    }

    #[inline(always)]
    fn can_write_at_least(&self, size: usize) -> Option<bool> {
        Some(self.payload.len() - self.at >= size)
    }
}

/// A vector of shared values, each written in full (speedy's own u32 length first).
fn write_arcs<C: Context, T: Writable<C>, W: ?Sized + Writer<C>>(
    items: &[Arc<T>],
    w: &mut W,
) -> Result<(), C::Error> {
    w.write_u32(items.len() as u32)?;
    items.iter().try_for_each(|item| (**item).write_to(w))
}

/// The inverse of [`write_arcs`]; the capacity reserved up front is bounded, never the
/// length read alone.
fn read_arcs<'a, C: Context, T: Readable<'a, C>, R: Reader<'a, C>>(
    r: &mut R,
) -> Result<Vec<Arc<T>>, C::Error> {
    let n = r.read_u32()? as usize;
    let mut items = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        items.push(Arc::new(r.read_value()?));
    }
    Ok(items)
}

impl<C: Context> Writable<C> for Order {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        self.id.write_to(w)?;
        (*self.customer).write_to(w)?;
        w.write_u32(self.lines.len() as u32)?;
        self.lines.iter().try_for_each(|l| l.write_to(w))?;
        self.status.write_to(w)?;
        self.created.write_to(w)?;
        (*self.shipping_address).write_to(w)?;
        self.attributes.write_to(w)?;
        self.notes.write_to(w)
    }
}

impl<'a, C: Context> Readable<'a, C> for Order {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        let id = r.read_value()?;
        let customer = Arc::new(r.read_value()?);
        let n = r.read_u32()? as usize;
        let mut lines = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            lines.push(r.read_value()?);
        }
        Ok(Order {
            id,
            customer,
            lines,
            status: r.read_value()?,
            created: r.read_value()?,
            shipping_address: Arc::new(r.read_value()?),
            attributes: r.read_value()?,
            notes: r.read_value()?,
        })
    }
}

impl<C: Context> Writable<C> for Customer {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        self.id.write_to(w)?;
        self.first_name.write_to(w)?;
        self.last_name.write_to(w)?;
        self.email.write_to(w)?;
        self.date_of_birth.write_to(w)?;
        self.vip.write_to(w)?;
        write_arcs(&self.addresses, w)
    }
}

impl<'a, C: Context> Readable<'a, C> for Customer {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        Ok(Customer {
            id: r.read_value()?,
            first_name: r.read_value()?,
            last_name: r.read_value()?,
            email: r.read_value()?,
            date_of_birth: r.read_value()?,
            vip: r.read_value()?,
            addresses: read_arcs(r)?,
        })
    }
}

impl<C: Context> Writable<C> for Address {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        self.street.write_to(w)?;
        self.city.write_to(w)?;
        self.zip.write_to(w)?;
        self.country.write_to(w)
    }
}

impl<'a, C: Context> Readable<'a, C> for Address {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        Ok(Address {
            street: r.read_value()?,
            city: r.read_value()?,
            zip: r.read_value()?,
            country: r.read_value()?,
        })
    }

    fn minimum_bytes_needed() -> usize {
        16
    }
}

impl<C: Context> Writable<C> for OrderLine {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        (*self.product).write_to(w)?;
        self.quantity.write_to(w)?;
        Writable::<C>::write_to(&self.unit_price, w)?;
        self.discount.write_to(w)
    }
}

impl<'a, C: Context> Readable<'a, C> for OrderLine {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        Ok(OrderLine {
            product: Arc::new(r.read_value()?),
            quantity: r.read_value()?,
            unit_price: r.read_value()?,
            discount: r.read_value()?,
        })
    }
}

impl<C: Context> Writable<C> for Product {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        self.sku.write_to(w)?;
        self.name.write_to(w)?;
        self.description.write_to(w)?;
        (*self.category).write_to(w)?;
        Writable::<C>::write_to(&self.price, w)?;
        self.weight_grams.write_to(w)?;
        self.tags.write_to(w)?;
        self.thumbnail.write_to(w)
    }
}

impl<'a, C: Context> Readable<'a, C> for Product {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        Ok(Product {
            sku: r.read_value()?,
            name: r.read_value()?,
            description: r.read_value()?,
            category: Arc::new(r.read_value()?),
            price: r.read_value()?,
            weight_grams: r.read_value()?,
            tags: r.read_value()?,
            thumbnail: r.read_value()?,
        })
    }
}

impl<C: Context> Writable<C> for Category {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        self.id.write_to(w)?;
        self.name.write_to(w)?;
        // `Option<&Category>`: a one-byte flag, then the parent.
        self.parent.as_deref().write_to(w)
    }
}

impl<'a, C: Context> Readable<'a, C> for Category {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        Ok(Category {
            id: r.read_value()?,
            name: r.read_value()?,
            parent: r.read_value::<Option<Category>>()?.map(Arc::new),
        })
    }

    fn minimum_bytes_needed() -> usize {
        8 + 4 + 1
    }
}

impl<C: Context> Writable<C> for OrderStatus {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        w.write_u8(*self as u8)
    }
}

impl<'a, C: Context> Readable<'a, C> for OrderStatus {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        let tag = r.read_u8()?;
        OrderStatus::ALL
            .get(usize::from(tag))
            .copied()
            .ok_or_else(|| speedy::Error::custom(format!("invalid status {tag}")).into())
    }
}

impl<C: Context> Writable<C> for Decimal {
    fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
        w.write_i64(self.cents)
    }
}

impl<'a, C: Context> Readable<'a, C> for Decimal {
    fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
        r.read_i64().map(Decimal::from_cents)
    }
}

/// The model's newtypes, as what they wrap (speedy's `IndexMap`, `IndexSet` and `Vec<u8>`).
macro_rules! newtype {
    ($($t:ident),*) => {$(
        impl<C: Context> Writable<C> for $t {
            fn write_to<W: ?Sized + Writer<C>>(&self, w: &mut W) -> Result<(), C::Error> {
                self.0.write_to(w)
            }
        }

        impl<'a, C: Context> Readable<'a, C> for $t {
            fn read_from<R: Reader<'a, C>>(r: &mut R) -> Result<Self, C::Error> {
                r.read_value().map($t)
            }
        }
    )*};
}

newtype!(Attributes, Tags, ByteArray);

// What speedy cannot do for the Order model: it is not self-describing; it has no `Arc`/`Rc`
// impls (the impls above write each shared value in full and decode each into its own
// allocation: shared references are not kept); prices are the cents as an i64.
