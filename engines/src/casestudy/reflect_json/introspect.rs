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
