//! The reflective serializer itself: its state and caches ([`ReflectJson`]), the article's
//! type-switch writer (`writeBean` / `writeValue`), and the typed writers and per-call plans of
//! the tuned variants. They are one module because they are one type: the writers are methods
//! of the serializer, and the serializer holds the writers' property lists.

use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::cache::PropertyCache;
use super::introspect::{introspect, Property};
use super::model::SAMPLE_LIST;
use super::reflect::{Class, Reflect, ReflectError, Type, Value};
use super::variant::Variant;
use super::write::{write_bool, write_integer, write_string};
use crate::casestudy::json_text::Sink;
use crate::model::Sample;
use serprof_api::{Codec, CodecError};

/// The reflective serializer. Like the article's serializers it may be shared between threads
/// (its caches are concurrent); one instance keeps its caches for its whole life.
pub struct ReflectJson {
    variant: Variant,
    /// Property lists of the type-switch variants.
    properties: PropertyCache<Property>,
    /// Property lists with writers, of the typed variants.
    typed: PropertyCache<TypedProperty>,
    /// Introspections done by `NonCached`, which has no cache to count them.
    fresh_introspections: AtomicUsize,
}

impl ReflectJson {
    /// The engine of `variant`, its caches empty.
    pub fn new(variant: Variant) -> ReflectJson {
        ReflectJson {
            variant,
            properties: PropertyCache::default(),
            typed: PropertyCache::default(),
            fresh_introspections: AtomicUsize::new(0),
        }
    }

    /// Which of the article's serializers it is.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The article's `serialize(Object)`: `value` as JSON in a new `String`, through the type
    /// switch, with this variant's way of finding properties.
    pub fn serialize(&self, value: Value<'_>) -> Result<String, ReflectError> {
        let mut json = String::new();
        self.write_value(value, &mut json)?;
        Ok(json)
    }

    /// Appends `value`, whose declared type is `declared`, to `out` as JSON, the way this
    /// variant does. `NonCached` and `Cached` build a fresh `String` and copy its bytes: that
    /// cost is part of their figure, as the `String` is part of the article's.
    pub fn write(
        &self,
        value: Value<'_>,
        declared: &Type,
        out: &mut Vec<u8>,
    ) -> Result<(), ReflectError> {
        match self.variant {
            Variant::NonCached | Variant::Cached => {
                let json = self.serialize(value)?;
                out.extend_from_slice(json.as_bytes());
                Ok(())
            }
            Variant::TunedBytes => self.write_value(value, out),
            Variant::TunedTyped => self.write_typed(value, declared, false, out),
            Variant::TunedResolved => self.write_typed(value, declared, true, out),
        }
    }

    /// How many times this serializer has introspected a class: once per bean for `NonCached`,
    /// once per type for the others.
    pub fn introspections(&self) -> usize {
        self.fresh_introspections.load(Ordering::Relaxed)
            + self.properties.introspections()
            + self.typed.introspections()
    }
}

/// The `reflection` study's codec: the whole Sample list per operation.
///
/// The engine only serializes. `decode` parses with serde_json: it is the reference that
/// verification checks the output against, and the study's operation is `Serialize`, so it is
/// never timed.
impl Codec<Vec<Sample>> for ReflectJson {
    fn encode(&mut self, value: &Vec<Sample>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.write(Value::List(value), &SAMPLE_LIST, out)
            .map_err(CodecError::encode)
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<Vec<Sample>, CodecError> {
        serde_json::from_slice(bytes).map_err(CodecError::decode)
    }
}

// The type-switch writer.
//
// The article's writer: `writeBean` and `writeValue`, a type switch on every value.
//
// `reflect-noncached`, `reflect-cached` and `reflect-tuned-bytes` write this way; they differ
// in where a bean's properties come from ([`ReflectJson::properties_of`]) and in the sink (a
// fresh `String` or the caller's `Vec<u8>`). The typed variants fall back to it for a value
// whose run-time type is not the one its property declares.

/// A bean's properties: discovered just now, or shared from the cache.
pub(crate) enum PropertyList {
    Fresh(Vec<Property>),
    Cached(Arc<[Property]>),
}

impl Deref for PropertyList {
    type Target = [Property];
    fn deref(&self) -> &[Property] {
        match self {
            PropertyList::Fresh(list) => list,
            PropertyList::Cached(list) => list,
        }
    }
}

impl ReflectJson {
    /// The article's `propertiesOf(bean.getClass())`: introspect again (`NonCached`), or look the
    /// type up in the concurrent map (every other variant).
    #[inline]
    pub(super) fn properties_of(&self, bean: &dyn Reflect) -> PropertyList {
        if self.variant == Variant::NonCached {
            self.fresh_introspections.fetch_add(1, Ordering::Relaxed);
            return PropertyList::Fresh(introspect(bean.class()));
        }
        let class = bean.class();
        PropertyList::Cached(
            self.properties
                .get_or_compute(bean.as_any().type_id(), || introspect(class)),
        )
    }

    /// `writeValue`: what to write is decided by looking at the value, every time.
    pub(super) fn write_value<S: Sink>(
        &self,
        value: Value<'_>,
        out: &mut S,
    ) -> Result<(), ReflectError> {
        match value {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => write_bool(b, out),
            Value::Int(n) => write_integer(n.into(), out),
            Value::Long(n) => write_integer(n, out),
            Value::Str(text) => write_string(text, out),
            Value::String(text) => write_string(&text, out),
            Value::List(list) => {
                out.push_ascii(b'[');
                for i in 0..list.len() {
                    if i > 0 {
                        out.push_ascii(b',');
                    }
                    self.write_value(list.get(i), out)?;
                }
                out.push_ascii(b']');
            }
            Value::Object(bean) => self.write_bean(bean, out)?,
        }
        Ok(())
    }

    /// `writeBean`: `{"name":value,...}` over the bean's properties, each read by invoking its
    /// getter.
    fn write_bean<S: Sink>(&self, bean: &dyn Reflect, out: &mut S) -> Result<(), ReflectError> {
        let properties = self.properties_of(bean);
        out.push_ascii(b'{');
        for (i, property) in properties.iter().enumerate() {
            let value = property.getter.invoke(bean.as_any(), &[])?;
            if i > 0 {
                out.push_ascii(b',');
            }
            write_string(&property.name, out);
            out.push_ascii(b':');
            self.write_value(value, out)?;
        }
        out.push_ascii(b'}');
        Ok(())
    }
}

// The typed writers and plans.
//
// The typed writers of `reflect-tuned-typed` and the per-call plans of `reflect-tuned-resolved`.
//
// Typed: when a class is introspected, each property also gets a writer chosen from its
// getter's declared return type ([`choose_writer`]), as Jackson gives each `BeanPropertyWriter`
// a type-specific serializer. Writing a value is then one check that it has the declared type
// (Java's `checkcast`) instead of the type switch of [`ReflectJson::write_value`]; a value of
// another type falls back to the switch.
//
// Resolved: at the start of a call, the root type's classes are resolved into a [`Plan`]: each
// class's property list taken once from the cache and held, with the plans of the classes its
// properties hold. Nested objects are then written from the held plan (a pointer comparison
// checks the class), not from a lookup in the concurrent map per object, as Jackson resolves
// its serializers once per root type.

/// Writes one property value; chosen once per property at introspection. The plan is the one
/// for the objects the value holds, if resolved.
pub type WriteFn = for<'a> fn(&mut Typed<'_>, Value<'a>, Option<&Plan>) -> Written;

/// What a writer returns.
type Written = Result<(), ReflectError>;

/// A property with its writer.
pub struct TypedProperty {
    pub property: Property,
    pub write: WriteFn,
    /// The declared class of the objects the property holds (itself or as list elements), which
    /// a [`Plan`] resolves ahead.
    pub nested: Option<&'static Class>,
}

/// [`introspect`], then a writer for every property.
#[inline(never)]
pub fn introspect_typed(class: &Class) -> Vec<TypedProperty> {
    introspect(class)
        .into_iter()
        .map(|property| {
            let (write, nested) = choose_writer(property.getter.returns);
            TypedProperty {
                property,
                write,
                nested,
            }
        })
        .collect()
}

/// The writer for values of the declared type `declared`, and the class it writes nested
/// objects of, if any.
pub fn choose_writer(declared: Type) -> (WriteFn, Option<&'static Class>) {
    match declared {
        Type::Bool => (write_bool_value, None),
        Type::Int | Type::Long => (write_integer_value, None),
        Type::Str => (write_string_value, None),
        Type::List(&Type::Str) => (write_string_list, None),
        Type::List(&Type::Object(class)) => (write_object_list, Some(class)),
        Type::Object(class) => (write_object, Some(class)),
        Type::Unit | Type::List(_) | Type::Any => (write_any, None),
    }
}

/// A class's properties, resolved once per call, with the plans of the classes they hold.
pub struct Plan {
    class: &'static Class,
    properties: Arc<[TypedProperty]>,
    /// By property index: the plan for the objects that property holds.
    nested: Box<[Option<Plan>]>,
}

/// One call's typed writing: the serializer (its caches, its type switch) and the output.
pub struct Typed<'o> {
    json: &'o ReflectJson,
    out: &'o mut Vec<u8>,
}

impl ReflectJson {
    /// Writes `value` of the declared type `declared` with typed writers; with `resolve`, the
    /// classes under `declared` are resolved first and held for the whole call.
    pub(super) fn write_typed(
        &self,
        value: Value<'_>,
        declared: &Type,
        resolve: bool,
        out: &mut Vec<u8>,
    ) -> Written {
        let (write, nested) = choose_writer(*declared);
        let plan = match nested {
            Some(class) if resolve => Some(self.resolve(class, &mut Vec::new())),
            _ => None,
        };
        write(&mut Typed { json: self, out }, value, plan.as_ref())
    }

    /// The typed properties of `bean`, from the concurrent map.
    fn typed_properties_of(&self, bean: &dyn Reflect) -> Arc<[TypedProperty]> {
        let class = bean.class();
        self.typed
            .get_or_compute(bean.as_any().type_id(), || introspect_typed(class))
    }

    /// The plan of `class`. `path` holds the classes being resolved above it: a class that
    /// holds itself, directly or not, is left unresolved there and looked up per object.
    fn resolve(&self, class: &'static Class, path: &mut Vec<&'static Class>) -> Plan {
        let properties = self
            .typed
            .get_or_compute((class.type_id)(), || introspect_typed(class));
        path.push(class);
        let nested = properties
            .iter()
            .map(|p| match p.nested {
                Some(c) if !path.iter().any(|&above| std::ptr::eq(above, c)) => {
                    Some(self.resolve(c, path))
                }
                _ => None,
            })
            .collect();
        path.pop();
        Plan {
            class,
            properties,
            nested,
        }
    }
}

impl Typed<'_> {
    /// `{"name":value,...}` with each property's own writer; from `plan` when it is this
    /// bean's class, else from the map.
    fn write_bean(&mut self, bean: &dyn Reflect, plan: Option<&Plan>) -> Written {
        match plan {
            Some(plan) if std::ptr::eq(bean.class(), plan.class) => {
                self.write_fields(bean, &plan.properties, Some(&plan.nested))
            }
            _ => self.write_fields(bean, &self.json.typed_properties_of(bean), None),
        }
    }

    fn write_fields(
        &mut self,
        bean: &dyn Reflect,
        properties: &[TypedProperty],
        nested: Option<&[Option<Plan>]>,
    ) -> Written {
        self.out.push(b'{');
        for (i, typed) in properties.iter().enumerate() {
            let value = typed.property.getter.invoke(bean.as_any(), &[])?;
            if i > 0 {
                self.out.push(b',');
            }
            write_string(&typed.property.name, self.out);
            self.out.push(b':');
            let plan = nested.and_then(|plans| plans[i].as_ref());
            (typed.write)(self, value, plan)?;
        }
        self.out.push(b'}');
        Ok(())
    }

    /// A value of another type than declared: the type switch.
    #[cold]
    fn write_other(&mut self, value: Value<'_>) -> Written {
        self.json.write_value(value, self.out)
    }
}

fn write_bool_value(cx: &mut Typed<'_>, value: Value<'_>, _: Option<&Plan>) -> Written {
    match value {
        Value::Bool(b) => write_bool(b, cx.out),
        other => return cx.write_other(other),
    }
    Ok(())
}

fn write_integer_value(cx: &mut Typed<'_>, value: Value<'_>, _: Option<&Plan>) -> Written {
    match value {
        Value::Int(n) => write_integer(n.into(), cx.out),
        Value::Long(n) => write_integer(n, cx.out),
        other => return cx.write_other(other),
    }
    Ok(())
}

fn write_string_value(cx: &mut Typed<'_>, value: Value<'_>, _: Option<&Plan>) -> Written {
    match value {
        Value::Str(text) => write_string(text, cx.out),
        other => return cx.write_other(other),
    }
    Ok(())
}

/// `List<String>` (Jackson's `IndexedStringListSerializer`).
fn write_string_list(cx: &mut Typed<'_>, value: Value<'_>, plan: Option<&Plan>) -> Written {
    write_list_of(cx, value, plan, write_string_value)
}

/// A list of beans of one declared class, each written from `plan` when given.
fn write_object_list(cx: &mut Typed<'_>, value: Value<'_>, plan: Option<&Plan>) -> Written {
    write_list_of(cx, value, plan, write_object)
}

/// `[a,b,...]`, every element through `element`, the writer of the declared element type.
#[inline]
fn write_list_of(
    cx: &mut Typed<'_>,
    value: Value<'_>,
    plan: Option<&Plan>,
    element: WriteFn,
) -> Written {
    let Value::List(list) = value else {
        return cx.write_other(value);
    };
    cx.out.push(b'[');
    for i in 0..list.len() {
        if i > 0 {
            cx.out.push(b',');
        }
        element(cx, list.get(i), plan)?;
    }
    cx.out.push(b']');
    Ok(())
}

fn write_object(cx: &mut Typed<'_>, value: Value<'_>, plan: Option<&Plan>) -> Written {
    match value {
        Value::Object(bean) => cx.write_bean(bean, plan),
        other => cx.write_other(other),
    }
}

/// A property declared `Object` (or of a type with no writer of its own): the type switch.
fn write_any(cx: &mut Typed<'_>, value: Value<'_>, _: Option<&Plan>) -> Written {
    cx.write_other(value)
}
