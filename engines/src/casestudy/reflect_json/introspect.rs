//! Property discovery: the article's `introspect(Class<?> type)`.
//!
//! From a class's methods it keeps those that look like getters, in the article's rules: no
//! parameters, not declared by `Object`, and either named `get...` (longer than `get`) with a
//! non-`void` return, or named `is...` returning a boolean. The rest of the name, decapitalised,
//! is the property's name. The properties are sorted by name, into a new list every call.
//!
//! Every step is its own `#[inline(never)]` function named for what it does, so that a profile
//! of the non-cached serializer shows discovery work by name (`introspect`, `is_property_getter`,
//! `decapitalize`, `introspect_sort`, `get_methods`).

use super::reflect::{Call, Class, Declarer, Method, Type};

/// A discovered property: its JSON name and the getter that reads it (the article's
/// `Property(String name, Method getter)`).
#[derive(Debug, Clone)]
pub struct Property {
    /// Its name in the JSON object.
    pub name: String,
    /// The method that reads it.
    pub getter: Method,
}

/// The properties of `class`, sorted by name: a new list, discovered from scratch.
#[inline(never)]
pub fn introspect(class: &Class) -> Vec<Property> {
    let mut properties = Vec::new();
    for method in class.get_methods() {
        if let Some(rest) = is_property_getter(&method) {
            properties.push(Property {
                name: decapitalize(rest),
                getter: method,
            });
        }
    }
    introspect_sort(&mut properties);
    properties
}

/// The part of the name after `get` or `is` if `method` is a getter, else `None`.
///
/// Beyond the article: an `is` must also be followed by something (the article's `is()` would
/// give a property named `""`), and the method must read its receiver through a shared
/// reference, which the article need not ask (Java has one kind of `invoke`); the serializer
/// holds only `&T`. Like the article and `java.beans.Introspector`, the prefix is matched as
/// text: a boolean `island()` is a property named `land`.
#[inline(never)]
pub fn is_property_getter(method: &Method) -> Option<&'static str> {
    if !method.params.is_empty() || method.declarer == Declarer::Object {
        return None;
    }
    if !matches!(method.call, Call::Shared(_)) {
        return None;
    }
    let name = method.name;
    if let Some(rest) = name.strip_prefix("get") {
        if !rest.is_empty() && !matches!(method.returns, Type::Unit) {
            return Some(rest);
        }
    } else if let Some(rest) = name.strip_prefix("is") {
        if !rest.is_empty() && matches!(method.returns, Type::Bool) {
            return Some(rest);
        }
    }
    None
}

/// A property name from the rest of a getter's name, by the JavaBeans rule
/// (`java.beans.Introspector.decapitalize`): the first character is lowered, unless the first
/// two are both upper case, then the name stays as it is. `ZipCode` gives `zipCode`, `X` gives
/// `x`, `URL` stays `URL` (Jackson's default would give `url`; the article names the JavaBeans
/// rule's method).
#[inline(never)]
pub fn decapitalize(rest: &str) -> String {
    let mut chars = rest.chars();
    let Some(first) = chars.next() else {
        return String::new();
    };
    if first.is_uppercase() && chars.next().is_some_and(char::is_uppercase) {
        return rest.to_string();
    }
    let mut name = String::with_capacity(rest.len());
    name.extend(first.to_lowercase());
    name.push_str(&rest[first.len_utf8()..]);
    name
}

/// Sorts properties by name, so keys come out in alphabetical order.
#[inline(never)]
pub fn introspect_sort(properties: &mut [Property]) {
    properties.sort_by(|a, b| a.name.cmp(&b.name));
}

#[cfg(test)]
mod tests {
    use std::any::{Any, TypeId};

    use super::*;
    use crate::casestudy::reflect_json::model::{ADDRESS_CLASS, SAMPLE_CLASS};
    use crate::casestudy::reflect_json::reflect::{ReflectError, Value};

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
        let s = crate::dataset::fixed_sample();
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
        let mut s = crate::dataset::fixed_sample();
        let set = SAMPLE_CLASS.method("setName", 1).unwrap();
        assert!(set.invoke(&s, &[Value::Str("lee")]).is_err());
        set.invoke_mut(&mut s, &[Value::Str("lee")]).unwrap();
        assert_eq!(s.name, "lee");
    }
}
