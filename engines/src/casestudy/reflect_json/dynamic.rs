//! The article's writer: `writeBean` and `writeValue`, a type switch on every value.
//!
//! `reflect-noncached`, `reflect-cached` and `reflect-tuned-bytes` write this way; they differ
//! in where a bean's properties come from ([`ReflectJson::properties_of`]) and in the sink (a
//! fresh `String` or the caller's `Vec<u8>`). The typed variants fall back to it for a value
//! whose run-time type is not the one its property declares.

use std::ops::Deref;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::introspect::{introspect, Property};
use super::reflect::{Reflect, ReflectError, Value};
use super::write::{write_bool, write_integer, write_string};
use super::{ReflectJson, Variant};
use crate::casestudy::json_text::Sink;

/// A bean's properties: discovered just now, or shared from the cache.
pub(super) enum PropertyList {
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
