//! How `Sample` and `SampleAddress` describe themselves at run time: their classes, written by
//! hand as a Java compiler would have emitted them from the article's beans.
//!
//! Besides the getters, each class carries the methods a real bean has and the serializer must
//! not take for properties: `getClass` (inherited), `hashCode`, `equals`, `toString`, setters,
//! a `get`-named method with an argument, and an `is`-named method that does not return a
//! boolean. The methods are listed in no useful order, so the serializer's sorting matters.

use std::any::{Any, TypeId};

use super::reflect::{
    get_class, receiver, receiver_mut, Call, Class, Declarer, ExclusiveFn, Method, Reflect,
    ReflectError, Type, Value,
};
use crate::model::{Sample, SampleAddress};

/// The declared type of the reflection study's root value, a list of Samples.
pub static SAMPLE_LIST: Type = Type::List(&Type::Object(&SAMPLE_CLASS));

impl Reflect for Sample {
    fn class(&self) -> &'static Class {
        &SAMPLE_CLASS
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Reflect for SampleAddress {
    fn class(&self) -> &'static Class {
        &ADDRESS_CLASS
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn sample<'a>(target: &'a dyn Any, method: &'static str) -> Result<&'a Sample, ReflectError> {
    receiver::<Sample>(target, method)
}

fn address<'a>(
    target: &'a dyn Any,
    method: &'static str,
) -> Result<&'a SampleAddress, ReflectError> {
    receiver::<SampleAddress>(target, method)
}

/// A setter of a `String` field, `void setX(String x)`: it changes its receiver.
const fn string_setter(name: &'static str, call: ExclusiveFn) -> Method {
    Method {
        name,
        params: &[Type::Str],
        returns: Type::Unit,
        declarer: Declarer::Class,
        call: Call::Exclusive(call),
    }
}

/// The one string argument of a setter.
fn string_arg(args: &[Value<'_>], method: &'static str) -> Result<String, ReflectError> {
    match args {
        [Value::Str(s)] => Ok((*s).to_string()),
        [Value::String(s)] => Ok(s.clone()),
        _ => Err(ReflectError::WrongArguments { method }),
    }
}

/// `Sample`'s public methods.
pub static SAMPLE_CLASS: Class = Class {
    name: "Sample",
    type_id: TypeId::of::<Sample>,
    methods: &[
        Method::shared("getName", &[], Type::Str, |t, _| {
            Ok(Value::Str(&sample(t, "getName")?.name))
        }),
        Method::shared("hashCode", &[], Type::Int, |t, _| {
            let s = sample(t, "hashCode")?;
            Ok(Value::Int((s.id as i32).wrapping_mul(31) ^ s.age))
        }),
        Method::shared("getRoles", &[], Type::List(&Type::Str), |t, _| {
            Ok(Value::List(&sample(t, "getRoles")?.roles))
        }),
        Method::shared("isActive", &[], Type::Bool, |t, _| {
            Ok(Value::Bool(sample(t, "isActive")?.active))
        }),
        Method::shared("toString", &[], Type::Str, |t, _| {
            let s = sample(t, "toString")?;
            Ok(Value::String(format!(
                "Sample(id={}, name={})",
                s.id, s.name
            )))
        }),
        Method::shared("getAddress", &[], Type::Object(&ADDRESS_CLASS), |t, _| {
            Ok(Value::Object(&sample(t, "getAddress")?.address))
        }),
        string_setter("setName", |t, args| {
            receiver_mut::<Sample>(t, "setName")?.name = string_arg(args, "setName")?;
            Ok(Value::Null)
        }),
        Method::shared("getId", &[], Type::Long, |t, _| {
            Ok(Value::Long(sample(t, "getId")?.id))
        }),
        Method::shared("equals", &[Type::Any], Type::Bool, |t, args| {
            let s = sample(t, "equals")?;
            Ok(Value::Bool(match args {
                [Value::Object(o)] => o.as_any().downcast_ref::<Sample>() == Some(s),
                _ => false,
            }))
        }),
        // A `get` with an argument: not a property.
        Method::shared("getRole", &[Type::Int], Type::Str, |t, args| {
            let s = sample(t, "getRole")?;
            match args {
                [Value::Int(i)] => Ok(usize::try_from(*i)
                    .ok()
                    .and_then(|i| s.roles.get(i))
                    .map_or(Value::Null, |r| Value::Str(r))),
                _ => Err(ReflectError::WrongArguments { method: "getRole" }),
            }
        }),
        Method::shared("getEmail", &[], Type::Str, |t, _| {
            Ok(Value::Str(&sample(t, "getEmail")?.email))
        }),
        // An `is` that does not return a boolean: not a property.
        Method::shared("isPrimaryRole", &[], Type::Str, |t, _| {
            let s = sample(t, "isPrimaryRole")?;
            Ok(s.roles.first().map_or(Value::Null, |r| Value::Str(r)))
        }),
        Method::shared("getAge", &[], Type::Int, |t, _| {
            Ok(Value::Int(sample(t, "getAge")?.age))
        }),
        Method::shared("getClass", &[], Type::Str, get_class::<Sample>).inherited(),
    ],
};

/// `SampleAddress`'s public methods (the article's `Address`).
pub static ADDRESS_CLASS: Class = Class {
    name: "SampleAddress",
    type_id: TypeId::of::<SampleAddress>,
    methods: &[
        Method::shared("toString", &[], Type::Str, |t, _| {
            let a = address(t, "toString")?;
            Ok(Value::String(format!(
                "Address({}, {})",
                a.city, a.zip_code
            )))
        }),
        Method::shared("getZipCode", &[], Type::Str, |t, _| {
            Ok(Value::Str(&address(t, "getZipCode")?.zip_code))
        }),
        string_setter("setCity", |t, args| {
            receiver_mut::<SampleAddress>(t, "setCity")?.city = string_arg(args, "setCity")?;
            Ok(Value::Null)
        }),
        Method::shared("getClass", &[], Type::Str, get_class::<SampleAddress>).inherited(),
        Method::shared("getCity", &[], Type::Str, |t, _| {
            Ok(Value::Str(&address(t, "getCity")?.city))
        }),
    ],
};
