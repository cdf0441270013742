//! `casestudy::reflect_json::introspect`.

use std::any::{Any, TypeId};

use serprof_engines::casestudy::reflect_json::introspect::*;
use serprof_engines::casestudy::reflect_json::model::{ADDRESS_CLASS, SAMPLE_CLASS};
use serprof_engines::casestudy::reflect_json::reflect::{Call, Class, Declarer, Method, Type};
use serprof_engines::casestudy::reflect_json::reflect::{ReflectError, Value};

fn unit<'a>(_: &'a dyn Any, _: &[Value<'a>]) -> Result<Value<'a>, ReflectError> {
    Ok(Value::Null)
}

fn noop(_: &mut dyn Any, _: &[Value<'_>]) -> Result<Value<'static>, ReflectError> {
    Ok(Value::Null)
}

/// A class of edge cases: one method per rule of the filter.
static ODD: Class = Class {
    name: "Odd",
    type_id: TypeId::of::<()>,
    methods: &[
        Method::shared("getZebra", &[], Type::Str, unit),
        Method::shared("getURL", &[], Type::Str, unit),
        Method::shared("getX", &[], Type::Long, unit),
        Method::shared("isOpen", &[], Type::Bool, unit),
        Method::shared("island", &[], Type::Bool, unit),
        Method::shared("getÉtat", &[], Type::Str, unit),
        // Rejected, each for one reason:
        Method::shared("get", &[], Type::Str, unit),
        Method::shared("is", &[], Type::Bool, unit),
        Method::shared("getReady", &[], Type::Unit, unit),
        Method::shared("getItem", &[Type::Int], Type::Str, unit),
        Method::shared("isCount", &[], Type::Int, unit),
        Method::shared("hashCode", &[], Type::Int, unit),
        Method::shared("toString", &[], Type::Str, unit),
        Method::shared("getClass", &[], Type::Str, unit).inherited(),
        Method::shared("isFrozen", &[], Type::Bool, unit).inherited(),
        Method {
            name: "getAndReset",
            params: &[],
            returns: Type::Long,
            declarer: Declarer::Class,
            call: Call::Exclusive(noop),
        },
    ],
};

fn names(class: &Class) -> Vec<String> {
    introspect(class).into_iter().map(|p| p.name).collect()
}

#[test]
fn keeps_getters_only_and_sorts_them() {
    // Sorted by code point: upper case before lower case, like Java's `String.compareTo`.
    assert_eq!(names(&ODD), ["URL", "land", "open", "x", "zebra", "état"]);
}

#[test]
fn sample_classes_give_the_article_properties() {
    assert_eq!(
        names(&SAMPLE_CLASS),
        ["active", "address", "age", "email", "id", "name", "roles"]
    );
    assert_eq!(names(&ADDRESS_CLASS), ["city", "zipCode"]);
}

#[test]
fn every_call_builds_a_new_list() {
    let a = introspect(&SAMPLE_CLASS);
    let b = introspect(&SAMPLE_CLASS);
    assert_ne!(a.as_ptr(), b.as_ptr());
    assert_eq!(a.len(), b.len());
}

#[test]
fn decapitalize_follows_the_javabeans_rule() {
    for (rest, name) in [
        ("ZipCode", "zipCode"),
        ("X", "x"),
        ("URL", "URL"),
        ("Url", "url"),
        ("URLs", "URLs"),
        ("aB", "aB"),
        ("État", "état"),
        ("", ""),
    ] {
        assert_eq!(decapitalize(rest), name, "{rest}");
    }
}

#[test]
fn getters_are_invoked_through_their_class() {
    let s = serprof_engines::dataset::fixed_sample();
    let zip = ADDRESS_CLASS.method("getZipCode", 0).unwrap();
    assert!(matches!(
        zip.invoke(&s.address, &[]),
        Ok(Value::Str("04524"))
    ));
    assert!(matches!(
        zip.invoke(&s, &[]),
        Err(ReflectError::WrongReceiver { .. })
    ));
    let role = SAMPLE_CLASS.method("getRole", 1).unwrap();
    assert!(matches!(
        role.invoke(&s, &[Value::Int(1)]),
        Ok(Value::Str("USER"))
    ));
    assert!(role.invoke(&s, &[]).is_err());
}

#[test]
fn setters_need_the_receiver_exclusively() {
    let mut s = serprof_engines::dataset::fixed_sample();
    let set = SAMPLE_CLASS.method("setName", 1).unwrap();
    assert!(set.invoke(&s, &[Value::Str("lee")]).is_err());
    set.invoke_mut(&mut s, &[Value::Str("lee")]).unwrap();
    assert_eq!(s.name, "lee");
}
