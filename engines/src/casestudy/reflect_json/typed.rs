//! The typed writers of `reflect-tuned-typed` and the per-call plans of `reflect-tuned-resolved`.
//!
//! Typed: when a class is introspected, each property also gets a writer chosen from its
//! getter's declared return type ([`choose_writer`]), as Jackson gives each `BeanPropertyWriter`
//! a type-specific serializer. Writing a value is then one check that it has the declared type
//! (Java's `checkcast`) instead of the type switch of [`ReflectJson::write_value`]; a value of
//! another type falls back to the switch.
//!
//! Resolved: at the start of a call, the root type's classes are resolved into a [`Plan`]: each
//! class's property list taken once from the cache and held, with the plans of the classes its
//! properties hold. Nested objects are then written from the held plan (a pointer comparison
//! checks the class), not from a lookup in the concurrent map per object, as Jackson resolves
//! its serializers once per root type.

use std::sync::Arc;

use super::introspect::{introspect, Property};
use super::reflect::{Class, Reflect, ReflectError, Type, Value};
use super::write::{write_bool, write_integer, write_string};
use super::ReflectJson;

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
