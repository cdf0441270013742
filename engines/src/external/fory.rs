//! Apache Fory's Rust crate (`fory`): an object-graph format with reference tracking.
//!
//! The model types derive `ForyStruct`/`ForyEnum` in `model::order`; this module registers them,
//! gives the four wrapper types of the model (whose fields fory has no serializer for) a
//! serializer each, and runs Fory in native (Rust-only) mode with the same schema on both sides
//! and reference tracking on, so an `Arc` used twice in one Order is written once and comes back
//! as one allocation, as Java Fory keeps shared references.

use fory::{Error, Fory, ReadContext, Serializer, WriteContext};

use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, DecimalCents, Order, OrderLine,
    OrderStatus, OrderedMap, OrderedSet, Product, Tags,
};
use serprof_api::{Codec, CodecError};

/// The version of fory this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("fory", "1.")
}

/// A configured `Fory` with every type of `T`'s graph registered (every model type, for the
/// Order).
pub struct ForyCodec<T = Order> {
    fory: Fory,
    value: std::marker::PhantomData<fn() -> T>,
}

/// How a user's types are registered with a `Fory` (ids are part of the wire form).
pub type Register = std::sync::Arc<dyn Fn(&mut Fory) -> Result<(), Error> + Send + Sync>;

/// The `Fory` serprof measures: native mode (`xlang(false)`: Rust types, no cross-language
/// mapping), `compatible(false)` (both sides share the schema, as in every round trip here: no
/// per-type field metadata on the wire, Java Fory's default `SCHEMA_CONSISTENT`), and
/// `track_ref(true)` (shared `Arc`s written once).
fn configured(register: impl Fn(&mut Fory) -> Result<(), Error>) -> Result<Fory, CodecError> {
    let mut fory = Fory::builder()
        .xlang(false)
        .compatible(false)
        .track_ref(true)
        .build();
    register(&mut fory).map_err(CodecError::setup)?;
    Ok(fory)
}

impl ForyCodec {
    /// Builds the engine on the Order, every model type registered.
    pub fn new() -> Result<ForyCodec, CodecError> {
        Ok(ForyCodec {
            fory: configured(register)?,
            value: std::marker::PhantomData,
        })
    }
}

/// fory on any type that derives `ForyObject`, its types registered by `register`
/// (`|f| f.register::<Reading>(1)`, one call per struct and enum of the graph), configured as
/// on the Order graph.
pub fn engine<T: serprof_api::Value + Serializer<Target = T>>(
    register: impl Fn(&mut Fory) -> Result<(), Error> + Send + Sync + 'static,
) -> serprof_api::Engine<T> {
    let register: Register = std::sync::Arc::new(register);
    serprof_api::Engine::new("fory", move || {
        Ok(ForyCodec::<T> {
            fory: configured(|f| register(f))?,
            value: std::marker::PhantomData,
        })
    })
    .library("fory", version())
    .call("Fory::serialize_to, Fory::deserialize")
    .frames("fory")
    .feature("fory")
}

/// Registers every type of the Order graph under a fixed numeric id (ids are part of the wire
/// form: both sides must agree).
fn register(fory: &mut Fory) -> Result<(), Error> {
    fory.register::<Order>(100)?;
    fory.register::<Customer>(101)?;
    fory.register::<Address>(102)?;
    fory.register::<OrderLine>(103)?;
    fory.register::<Product>(104)?;
    fory.register::<Category>(105)?;
    fory.register::<OrderStatus>(106)?;
    fory.register_serializer::<DecimalCents>(107)?;
    fory.register_serializer::<ByteArray>(108)?;
    fory.register_serializer::<Attributes>(109)?;
    fory.register_serializer::<Tags>(110)?;
    Ok(())
}

impl<T: Serializer<Target = T>> Codec<T> for ForyCodec<T> {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        // `serialize_to` appends to the caller's buffer.
        self.fory
            .serialize_to(out, value)
            .map(|_| ())
            .map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        self.fory.deserialize(bytes).map_err(CodecError::decode)
    }
}

/// A byte array as fory's binary (`Vec<u8>`): a length and the raw bytes.
impl Serializer for ByteArray {
    type Target = Self;

    fn write_data(value: &Self, context: &mut WriteContext) -> Result<(), Error> {
        <Vec<u8> as Serializer>::write_data(&value.0, context)
    }

    fn read_data(context: &mut ReadContext) -> Result<Self, Error> {
        <Vec<u8> as Serializer>::read_data(context).map(ByteArray)
    }
}

/// Reads a collection length and bounds it by the unread input: every element takes at least one
/// byte, so a larger count is a damaged payload, rejected before anything is allocated for it.
fn read_len(context: &mut ReadContext) -> Result<usize, Error> {
    let len = context.reader.read_var_u32()? as usize;
    let left = context.reader.slice_after_cursor().len();
    if len > left {
        return Err(Error::invalid_data(format!(
            "collection of {len} elements in {left} remaining bytes"
        )));
    }
    Ok(len)
}

/// Insertion-ordered attributes as a count and key, value strings (fory's map types are
/// `HashMap`/`BTreeMap`, which would lose the order).
impl Serializer for Attributes {
    type Target = Self;

    fn write_data(value: &Self, context: &mut WriteContext) -> Result<(), Error> {
        context.writer.write_var_u32(value.0.len() as u32);
        for (k, v) in &value.0 {
            <String as Serializer>::write_data(k, context)?;
            <String as Serializer>::write_data(v, context)?;
        }
        Ok(())
    }

    fn read_data(context: &mut ReadContext) -> Result<Self, Error> {
        let len = read_len(context)?;
        let mut map = OrderedMap::with_capacity_and_hasher(len, Default::default());
        for _ in 0..len {
            let k = <String as Serializer>::read_data(context)?;
            let v = <String as Serializer>::read_data(context)?;
            map.insert(k, v);
        }
        Ok(Attributes(map))
    }
}

/// Insertion-ordered tags as a count and strings (fory's set types are `HashSet`/`BTreeSet`).
impl Serializer for Tags {
    type Target = Self;

    fn write_data(value: &Self, context: &mut WriteContext) -> Result<(), Error> {
        context.writer.write_var_u32(value.0.len() as u32);
        for tag in &value.0 {
            <String as Serializer>::write_data(tag, context)?;
        }
        Ok(())
    }

    fn read_data(context: &mut ReadContext) -> Result<Self, Error> {
        let len = read_len(context)?;
        let mut set = OrderedSet::with_capacity_and_hasher(len, Default::default());
        for _ in 0..len {
            set.insert(<String as Serializer>::read_data(context)?);
        }
        Ok(Tags(set))
    }
}

// What fory cannot do for the Order model: it has no serializer for `IndexMap`/`IndexSet` (the
// insertion-ordered attributes and tags need the hand-written serializers above) and none for our
// `Decimal` and `ByteArray` wrappers; a recursive field must be `Option<Arc<_>>` (with
// `Option<Box<Category>>`, 1.7.7's `serialize` never returns: its size estimate recurses through
// the type); and its derive must sit on the model types themselves (or on a mirror declaration
// with `#[fory(target = ...)]`).
