//! minicbor: CBOR (RFC 8949) through `Encode`/`Decode` impls of ours, written against its
//! encoder and decoder: structs as arrays (no field names), byte arrays as CBOR byte strings,
//! attributes as a CBOR map in insertion order. minicbor's derive needs an index on every field
//! and has no `Arc`, `IndexMap` or `IndexSet` support, so the impls are by hand.

use std::sync::Arc;

use minicbor::decode::Error as DecodeError;
use minicbor::encode::{Error as EncodeError, Write};
use minicbor::{Decode, Decoder, Encode, Encoder};

use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    OrderedMap, OrderedSet, Product, Tags,
};
use serprof_api::{Codec, CodecError};

/// The version of minicbor this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("minicbor", "2.")
}

/// minicbor with the impls below.
#[derive(Debug, Clone, Copy, Default)]
pub struct Minicbor;

impl<T: Encode<()> + for<'b> Decode<'b, ()>> Codec<T> for Minicbor {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `Vec<u8>` is a minicbor writer: appends.
        minicbor::encode(value, &mut *out).map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        // minicbor's own `Write` for `&mut [u8]`.
        super::into_slice(out, |w| minicbor::encode(value, w))
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        let mut d = Decoder::new(bytes);
        let value: T = d.decode().map_err(CodecError::decode)?;
        super::whole(d.position(), bytes.len())?;
        Ok(value)
    }
}

/// minicbor on any type that derives its traits (`Encode`, `Decode`, with the default context `()`).
pub fn engine<T: serprof_api::Value + Encode<()> + for<'b> Decode<'b, ()>>(
) -> serprof_api::Engine<T> {
    super::described("minicbor", version(), "minicbor", || Minicbor)
        .call("minicbor::encode (serialize: into one slice), Decoder::decode")
}

type EncodeResult<W> = Result<(), EncodeError<<W as Write>::Error>>;

/// The header of a struct written as an array of `n` fields: the decoder checks the count.
fn fields(d: &mut Decoder<'_>, n: u64, what: &str) -> Result<(), DecodeError> {
    match d.array()? {
        Some(m) if m == n => Ok(()),
        _ => Err(
            DecodeError::message(format!("{what}: expected an array of {n} fields"))
                .at(d.position()),
        ),
    }
}

/// The length of a definite-length array or map (this encoder writes no indefinite ones).
fn definite(len: Option<u64>, d: &Decoder<'_>) -> Result<u64, DecodeError> {
    len.ok_or_else(|| DecodeError::message("indefinite length").at(d.position()))
}

/// Room for `n` elements read from the input: bounded, since `n` is not trusted.
fn capacity(n: u64) -> usize {
    n.min(1024) as usize
}

fn string(d: &mut Decoder<'_>) -> Result<String, DecodeError> {
    d.str().map(str::to_owned)
}

impl<C> Encode<C> for Order {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, ctx: &mut C) -> EncodeResult<W> {
        e.array(8)?.str(&self.id)?;
        self.customer.as_ref().encode(e, ctx)?;
        e.array(self.lines.len() as u64)?;
        for line in &self.lines {
            line.encode(e, ctx)?;
        }
        self.status.encode(e, ctx)?;
        e.i64(self.created)?;
        self.shipping_address.as_ref().encode(e, ctx)?;
        self.attributes.encode(e, ctx)?;
        e.encode(&self.notes)?;
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for Order {
    fn decode(d: &mut Decoder<'b>, ctx: &mut C) -> Result<Self, DecodeError> {
        fields(d, 8, "Order")?;
        let id = string(d)?;
        let customer = Arc::new(Customer::decode(d, ctx)?);
        let n = definite(d.array()?, d)?;
        let mut lines = Vec::with_capacity(capacity(n));
        for _ in 0..n {
            lines.push(OrderLine::decode(d, ctx)?);
        }
        Ok(Order {
            id,
            customer,
            lines,
            status: OrderStatus::decode(d, ctx)?,
            created: d.i64()?,
            shipping_address: Arc::new(Address::decode(d, ctx)?),
            attributes: Attributes::decode(d, ctx)?,
            notes: d.decode()?,
        })
    }
}

impl<C> Encode<C> for Customer {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, ctx: &mut C) -> EncodeResult<W> {
        e.array(7)?
            .i64(self.id)?
            .str(&self.first_name)?
            .str(&self.last_name)?
            .str(&self.email)?
            .i64(self.date_of_birth)?
            .bool(self.vip)?
            .array(self.addresses.len() as u64)?;
        for a in &self.addresses {
            a.as_ref().encode(e, ctx)?;
        }
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for Customer {
    fn decode(d: &mut Decoder<'b>, ctx: &mut C) -> Result<Self, DecodeError> {
        fields(d, 7, "Customer")?;
        let (id, first_name, last_name, email) = (d.i64()?, string(d)?, string(d)?, string(d)?);
        let (date_of_birth, vip) = (d.i64()?, d.bool()?);
        let n = definite(d.array()?, d)?;
        let mut addresses = Vec::with_capacity(capacity(n));
        for _ in 0..n {
            addresses.push(Arc::new(Address::decode(d, ctx)?));
        }
        Ok(Customer {
            id,
            first_name,
            last_name,
            email,
            date_of_birth,
            vip,
            addresses,
        })
    }
}

impl<C> Encode<C> for Address {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, _: &mut C) -> EncodeResult<W> {
        e.array(4)?
            .str(&self.street)?
            .str(&self.city)?
            .str(&self.zip)?
            .str(&self.country)?;
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for Address {
    fn decode(d: &mut Decoder<'b>, _: &mut C) -> Result<Self, DecodeError> {
        fields(d, 4, "Address")?;
        Ok(Address {
            street: string(d)?,
            city: string(d)?,
            zip: string(d)?,
            country: string(d)?,
        })
    }
}

impl<C> Encode<C> for OrderLine {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, ctx: &mut C) -> EncodeResult<W> {
        e.array(4)?;
        self.product.as_ref().encode(e, ctx)?;
        e.i32(self.quantity)?;
        self.unit_price.encode(e, ctx)?;
        e.f64(self.discount)?;
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for OrderLine {
    fn decode(d: &mut Decoder<'b>, ctx: &mut C) -> Result<Self, DecodeError> {
        fields(d, 4, "OrderLine")?;
        Ok(OrderLine {
            product: Arc::new(Product::decode(d, ctx)?),
            quantity: d.i32()?,
            unit_price: Decimal::decode(d, ctx)?,
            discount: d.f64()?,
        })
    }
}

impl<C> Encode<C> for Product {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, ctx: &mut C) -> EncodeResult<W> {
        e.array(8)?
            .str(&self.sku)?
            .str(&self.name)?
            .str(&self.description)?;
        self.category.as_ref().encode(e, ctx)?;
        self.price.encode(e, ctx)?;
        e.i32(self.weight_grams)?;
        self.tags.encode(e, ctx)?;
        self.thumbnail.encode(e, ctx)
    }
}

impl<'b, C> Decode<'b, C> for Product {
    fn decode(d: &mut Decoder<'b>, ctx: &mut C) -> Result<Self, DecodeError> {
        fields(d, 8, "Product")?;
        Ok(Product {
            sku: string(d)?,
            name: string(d)?,
            description: string(d)?,
            category: Arc::new(Category::decode(d, ctx)?),
            price: Decimal::decode(d, ctx)?,
            weight_grams: d.i32()?,
            tags: Tags::decode(d, ctx)?,
            thumbnail: ByteArray::decode(d, ctx)?,
        })
    }
}

impl<C> Encode<C> for Category {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, ctx: &mut C) -> EncodeResult<W> {
        e.array(3)?.i64(self.id)?.str(&self.name)?;
        match &self.parent {
            Some(p) => p.as_ref().encode(e, ctx),
            None => e.null().map(|_| ()),
        }
    }
}

impl<'b, C> Decode<'b, C> for Category {
    fn decode(d: &mut Decoder<'b>, _: &mut C) -> Result<Self, DecodeError> {
        fields(d, 3, "Category")?;
        let (id, name) = (d.i64()?, string(d)?);
        let parent = if d.datatype()? == minicbor::data::Type::Null {
            d.null()?;
            None
        } else {
            Some(Arc::new(d.decode::<Category>()?))
        };
        Ok(Category { id, name, parent })
    }
}

impl<C> Encode<C> for OrderStatus {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, _: &mut C) -> EncodeResult<W> {
        e.u8(*self as u8)?;
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for OrderStatus {
    fn decode(d: &mut Decoder<'b>, _: &mut C) -> Result<Self, DecodeError> {
        let at = d.position();
        let tag = d.u8()?;
        OrderStatus::ALL
            .get(usize::from(tag))
            .copied()
            .ok_or_else(|| DecodeError::message(format!("invalid status {tag}")).at(at))
    }
}

impl<C> Encode<C> for Decimal {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, _: &mut C) -> EncodeResult<W> {
        e.i64(self.cents)?;
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for Decimal {
    fn decode(d: &mut Decoder<'b>, _: &mut C) -> Result<Self, DecodeError> {
        d.i64().map(Decimal::from_cents)
    }
}

impl<C> Encode<C> for Attributes {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, _: &mut C) -> EncodeResult<W> {
        e.map(self.0.len() as u64)?;
        for (k, v) in &self.0 {
            e.str(k)?.str(v)?;
        }
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for Attributes {
    fn decode(d: &mut Decoder<'b>, _: &mut C) -> Result<Self, DecodeError> {
        let n = definite(d.map()?, d)?;
        let mut map = OrderedMap::with_capacity_and_hasher(capacity(n), Default::default());
        for _ in 0..n {
            map.insert(string(d)?, string(d)?);
        }
        Ok(Attributes(map))
    }
}

impl<C> Encode<C> for Tags {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, _: &mut C) -> EncodeResult<W> {
        e.array(self.0.len() as u64)?;
        for tag in &self.0 {
            e.str(tag)?;
        }
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for Tags {
    fn decode(d: &mut Decoder<'b>, _: &mut C) -> Result<Self, DecodeError> {
        let n = definite(d.array()?, d)?;
        let mut set = OrderedSet::with_capacity_and_hasher(capacity(n), Default::default());
        for _ in 0..n {
            set.insert(string(d)?);
        }
        Ok(Tags(set))
    }
}

impl<C> Encode<C> for ByteArray {
    fn encode<W: Write>(&self, e: &mut Encoder<W>, _: &mut C) -> EncodeResult<W> {
        e.bytes(&self.0)?;
        Ok(())
    }
}

impl<'b, C> Decode<'b, C> for ByteArray {
    fn decode(d: &mut Decoder<'b>, _: &mut C) -> Result<Self, DecodeError> {
        d.bytes().map(|b| ByteArray(b.to_vec()))
    }
}

// What minicbor cannot do for the Order model: its derive has no `Arc`, `IndexMap` or
// `IndexSet` support (hence the impls above); structs are arrays without field names, so a
// reader needs the same layout; CBOR has a decimal fraction tag, but prices here are the cents;
// shared references are written once per use and come back as separate allocations.
