//! The recording serializer: a [`Serializer`] wrapped around a format's own, which forwards
//! every call unchanged and notes, from the position of the bytes the format has written so
//! far, where each field, compound element and map entry begins and ends.
//!
//! The format writes into a [`Sink`] that the recorder owns, so a position is exact whenever the
//! format writes as it goes (every serde format serprof runs does; one that buffered would show
//! up as a payload unequal to the timed call's, which the workload checks).
//!
//! Frames: a struct field, a tuple field (`.0`), a sequence element (`[]`) and a map entry
//! (`{}`) open a frame around the format's call for it. A field's frame is always a node of the
//! split; an element's or entry's only when its value is compound (a struct, sequence, map or
//! enum with data): the bytes of a leaf element stay with the sequence that holds it. An enum
//! variant with data adds `::Variant` to the path of the fields under it and no node of its own.

use super::error::FieldsError;
use std::any::type_name;
use std::cell::RefCell;
use std::collections::BTreeMap;

use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// One value's payload as it splits by path.
#[derive(Debug, Clone, Default)]
pub struct PayloadPaths {
    pub(super) bytes: Vec<u8>,
    pub(super) paths: BTreeMap<String, PathBytes>,
}

impl PayloadPaths {
    /// The bytes the split is of.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// How far past a frame's start a format may write a name's first byte (JSON's `,"`, a string
/// header of MessagePack or CBOR).
const NAME_SLACK: usize = 4;

/// What one path took in one value.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct PathBytes {
    /// Its own bytes: its key and framing, and the bytes of every leaf under it.
    pub own: usize,
    /// The order the path first opened in (document order).
    pub order: usize,
    /// Bytes written one `u8` at a time as elements of a sequence or tuple it holds.
    pub u8_elements: usize,
    /// Bytes written through `serialize_bytes` in one call.
    pub native_bytes: usize,
    /// The innermost Rust type serialized at this path (`alloc::vec::Vec<u8>`).
    pub rust_type: &'static str,
    /// Bytes of field and variant names the format wrote in its own bytes (a self-describing
    /// format's keys and tags; 0 in a positional one).
    pub names: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Field,
    Element,
    Variant,
}

struct Frame {
    path: String,
    seq: usize,
    kind: Kind,
    start: usize,
    children: usize,
    compound: bool,
    u8_leaf: bool,
    u8_elements: usize,
    native_bytes: usize,
    rust_type: &'static str,
    /// The field's or variant's name, whose bytes the format may write at the frame's start.
    name: &'static str,
    names: usize,
}

#[derive(Default)]
struct State {
    out: Vec<u8>,
    stack: Vec<Frame>,
    paths: BTreeMap<String, PathBytes>,
    opened: usize,
}

/// The bytes a format writes and the frames around them.
#[derive(Default)]
pub(super) struct Recorder {
    state: RefCell<State>,
}

impl Recorder {
    fn pos(&self) -> usize {
        self.state.borrow().out.len()
    }

    fn open_at(&self, path: String, kind: Kind, start: usize) {
        let mut s = self.state.borrow_mut();
        let seq = s.opened;
        s.opened += 1;
        s.stack.push(Frame {
            path,
            seq,
            kind,
            start,
            children: 0,
            compound: false,
            u8_leaf: false,
            u8_elements: 0,
            native_bytes: 0,
            rust_type: "",
            name: "",
            names: 0,
        });
    }

    /// Names the frame just opened: its name's bytes count as names when the format writes them
    /// at its start.
    fn name_top(&self, name: &'static str) {
        self.top(|f| f.name = name);
    }

    /// `name`'s bytes, when the format wrote them within a few bytes of `start` (a JSON key's
    /// `,"`, a MessagePack or CBOR string header), or 0.
    fn written_name(out: &[u8], start: usize, name: &str) -> usize {
        let end = out.len().min(start + name.len() + NAME_SLACK);
        let window = out.get(start..end).unwrap_or(&[]);
        let found = !name.is_empty() && window.windows(name.len()).any(|w| w == name.as_bytes());
        if found {
            name.len()
        } else {
            0
        }
    }

    /// A unit variant written since `start`: its name's bytes count for the holder.
    fn unit_variant(&self, start: usize, name: &'static str) {
        let mut s = self.state.borrow_mut();
        let n = Self::written_name(&s.out, start, name);
        if let Some(f) = s.stack.last_mut() {
            f.names += n;
        }
    }

    /// Opens a frame at `segment` under the current path (`.field`, `[]`, `{}`, `::Variant`).
    fn open(&self, segment: &str, kind: Kind) {
        let path = format!("{}{segment}", self.current());
        let start = self.pos();
        self.open_at(path, kind, start);
    }

    fn current(&self) -> String {
        let s = self.state.borrow();
        s.stack.last().map(|f| f.path.clone()).unwrap_or_default()
    }

    fn top(&self, f: impl FnOnce(&mut Frame)) {
        if let Some(frame) = self.state.borrow_mut().stack.last_mut() {
            f(frame);
        }
    }

    fn close(&self) {
        let mut s = self.state.borrow_mut();
        let end = s.out.len();
        let Some(mut frame) = s.stack.pop() else {
            return;
        };
        frame.names += Self::written_name(&s.out, frame.start, frame.name);
        let inclusive = end - frame.start;
        let node = frame.kind == Kind::Field || (frame.kind == Kind::Element && frame.compound);
        if node {
            let p = s.paths.entry(frame.path).or_insert_with(|| PathBytes {
                order: frame.seq,
                ..PathBytes::default()
            });
            p.own += inclusive - frame.children;
            p.u8_elements += frame.u8_elements;
            p.native_bytes += frame.native_bytes;
            p.names += frame.names;
            if !frame.rust_type.is_empty() {
                p.rust_type = frame.rust_type;
            }
        }
        if let Some(parent) = s.stack.last_mut() {
            match frame.kind {
                _ if node => parent.children += inclusive,
                Kind::Variant => {
                    parent.children += frame.children;
                    parent.compound = true;
                    parent.names += frame.names;
                }
                _ => {
                    // A leaf element: its bytes stay the holder's own.
                    if frame.u8_leaf {
                        parent.u8_elements += inclusive;
                    }
                    parent.native_bytes += frame.native_bytes;
                    parent.names += frame.names;
                }
            }
        }
    }

    /// The bytes written and every path's share of them, once the root frame is closed.
    pub(super) fn finish(self) -> Result<(Vec<u8>, BTreeMap<String, PathBytes>), FieldsError> {
        let s = self.state.into_inner();
        if !s.stack.is_empty() {
            return Err(FieldsError::Unclosed {
                open: s.stack.len(),
            });
        }
        Ok((s.out, s.paths))
    }

    /// Records `value` as `write` serializes it into the sink: `root` is its path.
    pub(super) fn record<T: Serialize + ?Sized, E: std::fmt::Display>(
        value: &T,
        root: String,
        write: impl for<'r> FnOnce(&Tracked<'r, T>, Sink<'r>) -> Result<(), E>,
    ) -> Result<(Vec<u8>, BTreeMap<String, PathBytes>), FieldsError> {
        let recorder = Recorder::default();
        recorder.open_at(root, Kind::Field, 0);
        write(
            &Tracked {
                value,
                rec: &recorder,
            },
            Sink { rec: &recorder },
        )
        .map_err(|e| FieldsError::Write(e.to_string()))?;
        recorder.close();
        recorder.finish()
    }
}

/// Where the recorded format writes: `std::io::Write` and `Extend<u8>`, into the recorder.
pub struct Sink<'r> {
    rec: &'r Recorder,
}

impl Sink<'_> {
    /// Appends `bytes` (for a format's own writer trait).
    pub fn push(&mut self, bytes: &[u8]) {
        self.rec.state.borrow_mut().out.extend_from_slice(bytes);
    }
}

impl std::io::Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.push(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Extend<u8> for Sink<'_> {
    fn extend<I: IntoIterator<Item = u8>>(&mut self, iter: I) {
        self.rec.state.borrow_mut().out.extend(iter);
    }
}

/// A value whose serialization is recorded: give it to the format in place of the value.
pub struct Tracked<'r, T: ?Sized> {
    value: &'r T,
    rec: &'r Recorder,
}

impl<T: Serialize + ?Sized> Serialize for Tracked<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name = type_name::<T>();
        // serde's derive wraps a `#[serde(with = ...)]` field in a type of its own, which
        // names nothing of the user's.
        if !name.contains("__SerializeWith") {
            self.rec.top(|f| f.rust_type = name);
        }
        self.value.serialize(Rec {
            inner: s,
            rec: self.rec,
        })
    }
}

fn tracked<'r, T: ?Sized>(value: &'r T, rec: &'r Recorder) -> Tracked<'r, T> {
    Tracked { value, rec }
}

/// The wrapping serializer.
struct Rec<'r, S> {
    inner: S,
    rec: &'r Recorder,
}

/// The wrapping compound serializer (of every kind): `variant` when it closes a variant frame
/// at its end, `index` the next tuple field.
struct Compound<'r, C> {
    inner: C,
    rec: &'r Recorder,
    variant: bool,
    index: usize,
    key_start: usize,
}

fn compound<C>(rec: &Recorder, inner: C, variant: bool) -> Compound<'_, C> {
    Compound {
        inner,
        rec,
        variant,
        index: 0,
        key_start: 0,
    }
}

impl<S: Serializer> Rec<'_, S> {
    /// Marks the value being written compound, and opens a variant frame for its fields.
    fn begin(&self, variant: Option<&'static str>) {
        self.rec.top(|f| f.compound = true);
        if let Some(v) = variant {
            self.rec.open(&format!("::{v}"), Kind::Variant);
            self.rec.name_top(v);
        }
    }

    fn leaf(&self, u8_leaf: bool) {
        self.rec.top(|f| f.u8_leaf = u8_leaf);
    }
}

macro_rules! leaves {
    ($($method:ident($t:ty)),* $(,)?) => {$(
        fn $method(self, v: $t) -> Result<S::Ok, S::Error> {
            self.leaf(false);
            self.inner.$method(v)
        }
    )*};
}

impl<'r, S: Serializer> Serializer for Rec<'r, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<'r, S::SerializeSeq>;
    type SerializeTuple = Compound<'r, S::SerializeTuple>;
    type SerializeTupleStruct = Compound<'r, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<'r, S::SerializeTupleVariant>;
    type SerializeMap = Compound<'r, S::SerializeMap>;
    type SerializeStruct = Compound<'r, S::SerializeStruct>;
    type SerializeStructVariant = Compound<'r, S::SerializeStructVariant>;

    leaves!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_unit_struct(&'static str),
    );

    fn serialize_u8(self, v: u8) -> Result<S::Ok, S::Error> {
        self.leaf(true);
        self.inner.serialize_u8(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<S::Ok, S::Error> {
        self.rec.top(|f| {
            f.u8_leaf = false;
            f.native_bytes += v.len();
        });
        self.inner.serialize_bytes(v)
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.leaf(false);
        self.inner.serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_some(&tracked(value, self.rec))
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.leaf(false);
        self.inner.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.leaf(false);
        let (rec, start) = (self.rec, self.rec.pos());
        let r = self.inner.serialize_unit_variant(name, index, variant);
        rec.unit_variant(start, variant);
        r
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.inner
            .serialize_newtype_struct(name, &tracked(value, self.rec))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.begin(Some(variant));
        let r =
            self.inner
                .serialize_newtype_variant(name, index, variant, &tracked(value, self.rec));
        self.rec.close();
        r
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.begin(None);
        let rec = self.rec;
        let c = self.inner.serialize_seq(len)?;
        Ok(compound(rec, c, false))
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.begin(None);
        let rec = self.rec;
        let c = self.inner.serialize_tuple(len)?;
        Ok(compound(rec, c, false))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.begin(None);
        let rec = self.rec;
        let c = self.inner.serialize_tuple_struct(name, len)?;
        Ok(compound(rec, c, false))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.begin(Some(variant));
        let rec = self.rec;
        let c = self
            .inner
            .serialize_tuple_variant(name, index, variant, len)?;
        Ok(compound(rec, c, true))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.begin(None);
        let rec = self.rec;
        let c = self.inner.serialize_map(len)?;
        Ok(compound(rec, c, false))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.begin(None);
        let rec = self.rec;
        let c = self.inner.serialize_struct(name, len)?;
        Ok(compound(rec, c, false))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.begin(Some(variant));
        let rec = self.rec;
        let c = self
            .inner
            .serialize_struct_variant(name, index, variant, len)?;
        Ok(compound(rec, c, true))
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.leaf(false);
        self.inner.collect_str(value)
    }
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

impl<C> Compound<'_, C> {
    fn done<R>(self, end: impl FnOnce(C) -> R) -> R {
        let rec = self.rec;
        let variant = self.variant;
        let r = end(self.inner);
        if variant {
            rec.close();
        }
        r
    }
}

impl<C: SerializeSeq> SerializeSeq for Compound<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), C::Error> {
        let rec = self.rec;
        let inner = &mut self.inner;
        rec.open("[]", Kind::Element);
        let r = inner.serialize_element(&tracked(v, rec));
        rec.close();
        r
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.done(C::end)
    }
}

macro_rules! tuple_like {
    ($trait:ident, $method:ident) => {
        impl<C: $trait> $trait for Compound<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), C::Error> {
                let segment = format!(".{}", self.index);
                self.index += 1;
                let rec = self.rec;
                rec.open(&segment, Kind::Element);
                let r = self.inner.$method(&tracked(v, rec));
                rec.close();
                r
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.done(C::end)
            }
        }
    };
}
tuple_like!(SerializeTuple, serialize_element);
tuple_like!(SerializeTupleStruct, serialize_field);
tuple_like!(SerializeTupleVariant, serialize_field);

macro_rules! struct_like {
    ($trait:ident) => {
        impl<C: $trait> $trait for Compound<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), C::Error> {
                let rec = self.rec;
                rec.open(&format!(".{key}"), Kind::Field);
                rec.name_top(key);
                let r = self.inner.serialize_field(key, &tracked(v, rec));
                rec.close();
                r
            }
            fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
                self.inner.skip_field(key)
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.done(C::end)
            }
        }
    };
}
struct_like!(SerializeStruct);
struct_like!(SerializeStructVariant);

impl<C: SerializeMap> SerializeMap for Compound<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        self.key_start = self.rec.pos();
        self.inner.serialize_key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), C::Error> {
        let rec = self.rec;
        rec.open_at(
            format!("{}{{}}", rec.current()),
            Kind::Element,
            self.key_start,
        );
        let r = self.inner.serialize_value(&tracked(v, rec));
        rec.close();
        r
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.done(C::end)
    }
}
