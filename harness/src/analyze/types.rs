//! Time by type: a profile's stacks regrouped by the type whose serialization code runs at each
//! sample (`hotspots --by type`, `tree --by type`).
//!
//! A frame is a type's code when it is a method of one of the serialization traits implemented
//! for that type ([`TRAITS`]: serde's `Serialize` and `Deserialize` and their visitors, and the
//! derive traits of borsh, speedy, bincode, minicbor, msgpacker, nanoserde, musli, wincode and
//! rkyv), read from the two shapes legacy symbol names give it:
//! `<impl serde::ser::Serialize for my::Reading>::serialize` and `<my::Reading as
//! borsh::ser::BorshSerialize>::serialize`; a primitive's is the format's `serialize_u8`,
//! `deserialize_string`, ... . Each sample is kept under the chain of types above it, innermost
//! last; frames outside any type are dropped, and a sample in no type's code is
//! [`NO_TYPE`].
//!
//! Legacy symbol names print a generic type with its parameters (`Vec<T>`: every `Vec`'s
//! `visit_seq` is one name), so a generic type is resolved per sample from the type beneath it
//! in the same stack: a sample in a `u8`'s code under `Vec<T>` is `Vec<u8>`. A sample in the
//! generic code itself (the loop over the elements) has no such type beneath it and stays
//! `Vec<T>`. Engines whose frames name no trait of the list (bitcode's serde columns, prost,
//! flatbuffers, capnp, our hand-written codecs) show only [`NO_TYPE`] or their own types.

use std::collections::{BTreeMap, BTreeSet};

use serprof_api::__private::FieldBytes;
use serprof_api::__private::Finding;

use crate::model::Share;
use crate::profile::folded::Folded;

/// The group of a sample in no type's serialization code.
pub(crate) const NO_TYPE: &str = "(untyped)";

/// The serialization traits whose implementations are a type's code (their last path segment,
/// without generic arguments).
const TRAITS: [&str; 17] = [
    "Serialize",
    "Deserialize",
    "BorshSerialize",
    "BorshDeserialize",
    "Writable",
    "Readable",
    "Encode",
    "Decode",
    "Packable",
    "Unpackable",
    "SerBin",
    "DeBin",
    "SerJson",
    "DeJson",
    "SchemaWrite",
    "SchemaRead",
    "Archive",
];

/// serde's visitors named after the type they build, where no `impl ... for TYPE` is in the
/// frame.
const VISITORS: [(&str, &str); 3] = [
    ("StringVisitor", "String"),
    ("BytesVisitor", "Vec<u8>"),
    ("ByteBufVisitor", "Vec<u8>"),
];

/// What the payload's split by field tells the type view (`result.json` `fields`): the value's
/// type, and the sequences of primitives among its fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TypeHints {
    /// The value's type (the split's root): a format's struct method outside any type's code
    /// is this type's, its own `deserialize` having been inlined into it.
    pub root: Option<String>,
    /// The distinct types of the fields that are sequences of primitives (`Vec<u8>`), whose
    /// elements have no frames of their own.
    pub primitive_sequences: Vec<String>,
}

impl TypeHints {
    /// The hints of a configuration's split.
    pub(crate) fn of(fields: &[FieldBytes]) -> TypeHints {
        let root = fields
            .first()
            .map(|f| f.path.clone())
            .filter(|p| !p.contains('.'));
        let mut primitive_sequences: Vec<String> = fields
            .iter()
            .map(|f| f.rust_type.clone())
            .filter(|t| is_primitive_sequence(t))
            .collect();
        primitive_sequences.sort();
        primitive_sequences.dedup();
        TypeHints {
            root,
            primitive_sequences,
        }
    }
}

/// `Vec<u8>`, `[f64; 3]`, `VecDeque<i32>`: a sequence whose elements are primitives.
fn is_primitive_sequence(t: &str) -> bool {
    let element = match (t.find('<'), t.strip_prefix('[')) {
        (_, Some(array)) => array.split(';').next().unwrap_or(""),
        (Some(at), None) => t[at + 1..].trim_end_matches('>'),
        (None, None) => return false,
    };
    PRIMITIVES.contains(&element.trim())
}

/// Rust's primitive types.
const PRIMITIVES: [&str; 15] = [
    "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "u128", "i128", "f32", "f64", "bool",
    "char", "usize",
];

/// Whether a frame is a format's method that writes or reads a struct or map, or serde's
/// visitor of one: a struct's code whose own frame was inlined.
fn is_struct_method(frame: &str) -> bool {
    frame.ends_with("Serializer>::serialize_struct")
        || frame.ends_with("Deserializer>::deserialize_struct")
        || frame.ends_with("Serializer>::serialize_map")
        || frame.ends_with("Deserializer>::deserialize_map")
        || frame.ends_with("Visitor>::visit_map")
}

/// The same stacks as chains of types: `root;Reading;Vec<u8>;u8`, or `root;(untyped)`.
pub(crate) fn by_type(folded: &Folded, hints: &TypeHints) -> Folded {
    let mut cache = std::collections::HashMap::<&str, Option<String>>::new();
    let mut out = Folded::default();
    for (frames, count) in folded.iter() {
        let mut chain: Vec<String> = Vec::new();
        // Whether a struct's code (inlined, so nameless) ran between the last type and here:
        // the type beneath a generic one is its element only when none did.
        let mut struct_between = vec![false];
        for f in frames.iter().skip(1) {
            let t = cache.entry(f).or_insert_with(|| type_of_frame(f));
            if let Some(t) = t {
                if WRAPPERS.iter().any(|w| t.starts_with(w)) {
                    continue;
                }
                if chain.last() != Some(t) {
                    chain.push(t.clone());
                    struct_between.push(false);
                }
            } else if is_struct_method(f) {
                match (&hints.root, chain.is_empty()) {
                    (Some(root), true) => {
                        chain.push(root.clone());
                        struct_between.push(false);
                    }
                    _ => {
                        if let Some(b) = struct_between.last_mut() {
                            *b = true;
                        }
                    }
                }
            }
        }
        // Every type's code in the measured loop runs inside the value's own.
        if let (Some(root), Some(first)) = (&hints.root, chain.first()) {
            if first != root {
                chain.insert(0, root.clone());
                struct_between.insert(1, true);
            }
        }
        resolve_generics(&mut chain, &struct_between[1..]);
        // A generic sequence with no element type beneath it: the one sequence of primitives
        // among the value's fields, when there is exactly one (not the bytes a `String` reads
        // through a `Vec` of its own).
        let n = chain.len();
        let in_string = n >= 2 && chain[n - 2] == "String";
        if let (Some(last), [only], false) =
            (chain.last_mut(), &hints.primitive_sequences[..], in_string)
        {
            if last.ends_with("<T>") && only.starts_with(last.trim_end_matches("<T>")) {
                *last = only.clone();
            }
        }
        if chain.is_empty() {
            chain.push(NO_TYPE.into());
        }
        let mut key = frames.first().copied().unwrap_or("").to_string();
        for t in &chain {
            key.push(';');
            key.push_str(&t.replace(' ', "").replace(';', ","));
        }
        *out.stacks.entry(key).or_insert(0) += count;
    }
    out
}

/// Each type's inclusive share of the samples of a [`by_type`] profile (every sample whose chain
/// holds it), largest first.
pub(crate) fn inclusive(by_type: &Folded) -> Vec<Share> {
    let total = by_type.total().max(1) as f64;
    let mut counts = BTreeMap::<&str, u64>::new();
    for (frames, count) in by_type.iter() {
        let distinct: BTreeSet<&str> = frames.iter().skip(1).copied().collect();
        for t in distinct {
            *counts.entry(t).or_insert(0) += count;
        }
    }
    let mut shares: Vec<Share> = counts
        .into_iter()
        .map(|(t, c)| Share {
            function: t.to_string(),
            percent: 100.0 * c as f64 / total,
        })
        .collect();
    shares.sort_by(|a, b| b.percent.total_cmp(&a.percent));
    shares
}

/// A type other than the outermost whose own code holds at least this share of the samples
/// dominates the profile: more than every other part of the value's code together.
pub(crate) const LARGE_TYPE_PERCENT: f64 = 50.0;

/// Completes the findings of a profiled configuration from its type shares (`types`, largest
/// first, as [`inclusive`] gives them): a byte array's share of the profile is its type's,
/// counting the samples in `u8` code too (a `Vec<u8>`'s elements under its parent type
/// when the `Vec`'s own frame is inlined away); a type other than the outermost whose own code
/// holds [`LARGE_TYPE_PERCENT`] or more is a finding of its own.
pub(crate) fn complete_findings(findings: &mut Vec<Finding>, by_type: &Folded) {
    let total = by_type.total().max(1) as f64;
    for f in findings.iter_mut() {
        if let Finding::ElementByElement {
            rust_type,
            profile_share,
            ..
        } = f
        {
            let samples: u64 = by_type
                .iter()
                .filter(|(frames, _)| {
                    frames
                        .iter()
                        .skip(1)
                        .any(|t| *t == rust_type.as_str() || *t == "u8")
                })
                .map(|(_, c)| c)
                .sum();
            // No sample in its type's code: the profile cannot tell it apart (a generic
            // `Vec<T>`), which is not the same as none of the time.
            *profile_share = (samples > 0).then(|| samples as f64 / total);
        }
    }
    for (t, c) in own_samples(by_type) {
        let percent = 100.0 * c as f64 / total;
        if percent >= LARGE_TYPE_PERCENT {
            findings.push(Finding::LargeType {
                rust_type: t,
                share: percent / 100.0,
            });
        }
    }
}

/// The samples of each type's own code (the samples it is the innermost type of) that can be
/// a `large_type`: every type other than the value's own (whose code holds every field's code
/// inlined into it) and a generic one the profile could not resolve.
pub(crate) fn own_samples(by_type: &Folded) -> Vec<(String, u64)> {
    let shares = inclusive(by_type);
    let outermost = shares.iter().find(|s| s.function != NO_TYPE);
    let mut own = BTreeMap::<&str, u64>::new();
    for (frames, count) in by_type.iter() {
        if let Some(last) = frames.last().filter(|_| frames.len() > 1) {
            *own.entry(last).or_insert(0) += count;
        }
    }
    own.into_iter()
        .filter(|(t, _)| {
            let root = outermost.is_some_and(|o| o.function == *t);
            !root && *t != NO_TYPE && !t.contains("<T>")
        })
        .map(|(t, c)| (t.to_string(), c))
        .collect()
}

/// `Vec<T>` followed by `u8` is `Vec<u8>`: a type whose one generic parameter is `T` takes the
/// type beneath it.
/// Only a leaf (a primitive or `String`) directly beneath, with no struct's code between
/// (`struct_between[i]`: between types `i` and `i + 1`), names the element: a struct's own
/// `deserialize` is often inlined into the format's methods, so the type beneath it would be
/// one of its fields, not the element.
fn resolve_generics(chain: &mut [String], struct_between: &[bool]) {
    for i in (0..chain.len().saturating_sub(1)).rev() {
        let leaf = is_leaf(&chain[i + 1]);
        if let (Some(head), true, Some(false)) = (
            chain[i].strip_suffix("<T>"),
            leaf,
            struct_between.get(i).copied(),
        ) {
            chain[i] = format!("{head}<{}>", chain[i + 1]);
        }
    }
}

/// A primitive or `String`: a type with no fields whose code could be inlined into another's.
fn is_leaf(t: &str) -> bool {
    t == "String" || t == "bytes" || PRIMITIVES.contains(&t)
}

/// Generic wrappers that pass their value through (`Box<T>`, `Arc<T>`, `Option<T>`): their
/// frames are not a type's code of their own and are left out of the chains.
const WRAPPERS: [&str; 5] = ["Box<", "Arc<", "Rc<", "Option<", "Cow<"];

/// The type whose serialization code `frame` is, without module paths.
pub(crate) fn type_of_frame(frame: &str) -> Option<String> {
    if let Some(t) = primitive(frame) {
        return Some(t.into());
    }
    for (visitor, ty) in VISITORS {
        if frame.contains(&format!("::{visitor} as ")) {
            return Some(ty.into());
        }
    }
    // `<impl TRAIT for TYPE>` anywhere in the name.
    let mut rest = frame;
    while let Some(at) = rest.find("<impl ") {
        let inner = &rest[at + 1..];
        let end = closing(inner)?;
        if let Some((t, ty)) = split_at_depth0(&inner[5..end], " for ") {
            if is_trait(t) {
                return named(ty);
            }
        }
        rest = &inner[end..];
    }
    // `<TYPE as TRAIT>::method` at the start.
    if let Some(inner) = frame.strip_prefix('<') {
        let end = closing(inner)?;
        if let Some((ty, t)) = split_at_depth0(&inner[..end], " as ") {
            if is_trait(t) {
                return named(ty);
            }
        }
    }
    None
}

/// A type's short name, or `None` for a reference (`&T` is its referent's code, named below).
fn named(ty: &str) -> Option<String> {
    let ty = ty.trim();
    (!ty.starts_with('&') && !ty.starts_with('*')).then(|| serprof_api::__private::short_type(ty))
}

/// Whether a trait path is one of [`TRAITS`].
fn is_trait(path: &str) -> bool {
    let bare = path.split('<').next().unwrap_or(path);
    let last = bare.rsplit("::").next().unwrap_or(bare);
    TRAITS.contains(&last)
}

/// The primitive a format's `serialize_u8` / `deserialize_string` frame writes or reads.
fn primitive(frame: &str) -> Option<&'static str> {
    if !(frame.contains("Serializer>::") || frame.contains("Deserializer>::")) {
        return None;
    }
    let method = frame.rsplit("::").next()?;
    let kind = method
        .strip_prefix("serialize_")
        .or_else(|| method.strip_prefix("deserialize_"))?;
    Some(match kind {
        "bool" => "bool",
        "i8" => "i8",
        "i16" => "i16",
        "i32" => "i32",
        "i64" => "i64",
        "i128" => "i128",
        "u8" => "u8",
        "u16" => "u16",
        "u32" => "u32",
        "u64" => "u64",
        "u128" => "u128",
        "f32" => "f32",
        "f64" => "f64",
        "char" => "char",
        "str" | "string" => "String",
        "bytes" | "byte_buf" => "bytes",
        _ => return None,
    })
}

/// The index of the `>` that closes a name opened just before `s` (depth 1 at its start).
fn closing(s: &str) -> Option<usize> {
    let mut depth = 1usize;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at the first `sep` outside angle brackets.
fn split_at_depth0<'a>(s: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 && s[i..].starts_with(sep) => {
                return Some((&s[..i], &s[i + sep.len()..]));
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_name_their_types() {
        let cases = [
            ("readings::_::<impl serde_core::ser::Serialize for readings::Reading>::serialize", Some("Reading")),
            ("<serde_core::de::impls::<impl serde_core::de::Deserialize for alloc::vec::Vec<T>>::deserialize::VecVisitor<T> as serde_core::de::Visitor>::visit_seq", Some("Vec<T>")),
            ("readings::_::<impl serde_core::de::Deserialize for readings::Reading>::deserialize::__Visitor as serde_core::de::Visitor>::visit_map", Some("Reading")),
            ("<serde_core::de::impls::StringVisitor as serde_core::de::Visitor>::visit_str", Some("String")),
            ("bincode::features::impl_alloc::<impl bincode::de::Decode<Context> for alloc::string::String>::decode", Some("String")),
            ("<serprof_engines::model::bytes::ByteArray as serde_core::ser::Serialize>::serialize", Some("ByteArray")),
            ("<m::Order as borsh::ser::BorshSerialize>::serialize", Some("Order")),
            ("<&mut serde_json::de::Deserializer<R> as serde_core::de::Deserializer>::deserialize_u8", Some("u8")),
            ("<&mut serde_json::ser::Serializer<W,F> as serde_core::ser::Serializer>::serialize_str", Some("String")),
            ("<&mut serde_json::de::Deserializer<R> as serde_core::de::Deserializer>::deserialize_struct", None),
            ("serde_core::ser::impls::<impl serde_core::ser::Serialize for &T>::serialize", None),
            ("<serprof_engines::external::serde_json::SerdeJson as serprof_api::codec::Codec<T>>::decode", None),
            ("serde_json::ser::format_escaped_str", None),
        ];
        for (frame, want) in cases {
            assert_eq!(type_of_frame(frame).as_deref(), want, "{frame}");
        }
    }

    #[test]
    fn stacks_become_chains_of_types_with_generics_resolved_beneath() {
        let mut f = Folded::default();
        let visit = "<serde_core::de::impls::<impl serde_core::de::Deserialize for alloc::vec::Vec<T>>::deserialize::VecVisitor<T> as serde_core::de::Visitor>::visit_seq";
        let reading = "r::_::<impl serde_core::de::Deserialize for r::Reading>::deserialize";
        let u8s = "<&mut serde_json::de::Deserializer<R> as serde_core::de::Deserializer>::deserialize_u8";
        f.add(
            "cfg",
            &["main", "loop", reading, visit, u8s, "parse_integer"],
            5,
        );
        f.add("cfg", &["main", "loop", reading, visit], 2);
        f.add("cfg", &["main", "loop", reading, "memchr"], 3);
        f.add("cfg", &["main", "loop", "Vec::reserve"], 1);
        let g = by_type(&f, &TypeHints::default());
        let got: Vec<(String, u64)> = g.stacks.clone().into_iter().collect();
        assert_eq!(
            got,
            [
                ("cfg;(untyped)".to_string(), 1),
                ("cfg;Reading".to_string(), 3),
                ("cfg;Reading;Vec<T>".to_string(), 2),
                ("cfg;Reading;Vec<u8>;u8".to_string(), 5),
            ]
        );
        assert_eq!(g.total(), f.total());
    }

    #[test]
    fn a_byte_array_finding_gets_its_profile_share_and_a_dominant_type_is_named() {
        let mut f = Folded::default();
        f.add("cfg", &["Reading", "Vec<u8>", "u8"], 6);
        f.add("cfg", &["Reading", "u8"], 1);
        f.add("cfg", &["Reading", "String"], 2);
        f.add("cfg", &["(untyped)"], 1);
        let mut findings = vec![Finding::ElementByElement {
            path: "Reading.raw".into(),
            rust_type: "Vec<u8>".into(),
            share: 0.5,
            bytes: 10.0,
            remedy: "r".into(),
            profile_share: None,
        }];
        complete_findings(&mut findings, &f);
        match &findings[0] {
            Finding::ElementByElement { profile_share, .. } => {
                assert_eq!(*profile_share, Some(0.7))
            }
            other => panic!("{other:?}"),
        }
        // `u8`'s own code holds 7 of 10 samples; the value's own type is never the finding.
        assert_eq!(
            findings[1..],
            [Finding::LargeType {
                rust_type: "u8".into(),
                share: 0.7
            }]
        );
        // A profile that cannot tell the type apart gives no share, not a zero.
        let mut other = Folded::default();
        other.add("cfg", &["Reading", "Vec<T>"], 3);
        let mut findings = findings[..1].to_vec();
        if let Finding::ElementByElement { profile_share, .. } = &mut findings[0] {
            *profile_share = None;
        }
        complete_findings(&mut findings, &other);
        assert!(matches!(
            &findings[..],
            [Finding::ElementByElement {
                profile_share: None,
                ..
            }]
        ));
    }

    #[test]
    fn the_split_names_the_root_and_the_one_sequence_of_primitives() {
        let field = |path: &str, ty: &str| FieldBytes {
            path: path.into(),
            bytes: 1.0,
            share: 0.1,
            rust_type: ty.into(),
            names: 0.0,
        };
        let hints = TypeHints::of(&[
            field("Reading", "Reading"),
            field("Reading.tags", "Vec<String>"),
            field("Reading.raw", "Vec<u8>"),
        ]);
        assert_eq!(hints.root.as_deref(), Some("Reading"));
        assert_eq!(hints.primitive_sequences, ["Vec<u8>"]);
        let mut f = Folded::default();
        let de = "<&mut serde_json::de::Deserializer<R> as serde_core::de::Deserializer>::deserialize_struct";
        let visit = "<serde_core::de::impls::<impl serde_core::de::Deserialize for alloc::vec::Vec<T>>::deserialize::VecVisitor<T> as serde_core::de::Visitor>::visit_seq";
        let s = "<serde_core::de::impls::StringVisitor as serde_core::de::Visitor>::visit_str";
        f.add("cfg", &["decode", de, visit, "parse_integer"], 4);
        f.add("cfg", &["decode", de, visit, s], 2);
        f.add("cfg", &["decode", de], 1);
        let got: Vec<(String, u64)> = by_type(&f, &hints).stacks.into_iter().collect();
        assert_eq!(
            got,
            [
                ("cfg;Reading".to_string(), 1),
                ("cfg;Reading;Vec<String>;String".to_string(), 2),
                ("cfg;Reading;Vec<u8>".to_string(), 4),
            ]
        );
        // Two sequences of primitives: the profile cannot tell them apart.
        let two = TypeHints {
            primitive_sequences: vec!["Vec<f64>".into(), "Vec<u8>".into()],
            ..hints
        };
        assert!(by_type(&f, &two).stacks.contains_key("cfg;Reading;Vec<T>"));
    }
}
