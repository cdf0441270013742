//! The frames each finding of a CPU profile reads: which functions are number formatting, UTF-8
//! validation, SipHash, the allocator, a string built on decode, a buffer grown, or per-value
//! discovery work, and on which side of the measured loop (encode or decode) a sample is.
//! The lists are the function names of the libraries the studies measure (std, serde, serde_json,
//! ryu, itoa, simd-json, sonic-rs, the binary engines); docs/guide/findings.md gives them.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::analyze::hotspots::short_name;
use crate::profile::folded::Folded;

/// A class of frames, compiled once.
pub(super) struct Class {
    re: Regex,
}

impl Class {
    fn new(pattern: &str) -> Class {
        Class {
            // The patterns are constants of this file; its unit test compiles each one.
            re: Regex::new(pattern).unwrap_or_else(|e| unreachable!("frame pattern: {e}")),
        }
    }

    pub(super) fn matches(&self, frame: &str) -> bool {
        self.re.is_match(frame)
    }
}

macro_rules! class {
    ($name:ident, $pattern:expr) => {
        pub(super) static $name: LazyLock<Class> = LazyLock::new(|| Class::new($pattern));
    };
}

// The allocator's own code: glibc's malloc family, Rust's allocation shims (`__rust_alloc`,
// `__rustc::__rust_alloc` as current toolchains name it, and the
// `__rust_no_alloc_shim_is_unstable` call every allocation makes) and `GlobalAlloc` impls
// (the counting allocator's among them), jemalloc's and mimalloc's entry points, and `Vec`'s
// growth path.
class!(
    ALLOCATOR,
    r"^(malloc|free|realloc|calloc|cfree|_int_malloc|_int_free\w*|_int_realloc|malloc_consolidate|unlink_chunk\w*|tcache_\w+|(__GI_)?__libc_(malloc|free|realloc|calloc)|(__rustc::)?(__rust_(alloc|dealloc|realloc|alloc_zeroed|no_alloc_shim_is_unstable\w*)|__rdl_\w+)|_rjem_\w+|je_\w+|_?mi_\w+)$|as core::alloc::global::GlobalAlloc>::|^alloc::alloc::(alloc|dealloc|realloc|exchange_malloc)|raw_vec::finish_grow"
);
// serprof's own allocation wrappers in the measured program (counting each allocation, choosing
// the allocator of `run --allocators`): a sample whose innermost frame is one of them is
// serprof's cost, not the program's.
class!(
    INSTRUMENTATION,
    r"<serprof::measure::(alloc::CountingAlloc|chosen::ChosenAlloc)\b"
);

/// `folded` without the samples spent in serprof's own allocation wrappers
/// ([`INSTRUMENTATION`] as the innermost frame): what the program's profile would be without
/// serprof counting its allocations.
pub(super) fn without_instrumentation(folded: &Folded) -> Folded {
    let stacks = folded
        .stacks
        .iter()
        .filter(|(stack, _)| {
            let leaf = stack.rsplit(';').next().unwrap_or("");
            !INSTRUMENTATION.matches(leaf)
        })
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    Folded { stacks }
}

// Freeing: what a value's drop calls, away from where its memory was allocated.
class!(
    FREE,
    r"^(free|cfree|_int_free\w*|(__GI_)?__libc_free|(__rustc::)?(__rust_dealloc|__rdl_dealloc)|_rjem_sdallocx|_?mi_free\w*)$|GlobalAlloc>::dealloc|^alloc::alloc::dealloc"
);
// Hashing through a `BuildHasher`, whose hasher's rounds are often inlined into it.
class!(
    HASHING,
    r"core::hash::BuildHasher::hash_one|hashbrown::map::make_hash|make_insert_hash"
);
// A hash map's inserts and lookups (hashbrown's and std's), into which the hasher's rounds are
// inlined: with them, a map's hashing and the probing that cannot be told from it.
class!(
    MAP_OPS,
    r"hashbrown::map::HashMap<.*>::(insert|get|get_mut|get_inner|entry|contains_key|remove)\b|hashbrown::raw::RawTable<.*>::(find|find_or_find_insert_slot|insert|insert_in_slot|reserve_rehash)\b|hashbrown::raw::RawTableInner::(find_insert_slot|find_or_find_insert_slot_inner|find_inner)\b|std::collections::hash::map::HashMap<.*>::(insert|get|entry|contains_key|remove)\b"
);
// Growing a buffer: `Vec`'s reserve and grow paths, and `realloc` itself.
class!(
    GROWTH,
    r"^(realloc|_int_realloc|(__rustc::)?__rust_realloc|__libc_realloc)$|GlobalAlloc>::realloc|raw_vec::finish_grow|RawVec(Inner)?<.*>::(grow\w*|reserve\w*)|reserve_for_push|do_reserve_and_handle"
);
// A string made for a decoded value (and dropped with it), by serde's `String` visitor and the
// binary engines' string readers, named `<String as Trait>` or `<impl Trait for String>`. Not
// `deserialize_str` nor a `visit_str`: any type may read a borrowed `&str` (a base64 byte array,
// a field's name) without making a String. (A `Vec`'s visitor is not one either: it holds its
// elements' decoding.)
class!(
    OWNED,
    r"Deserialize for alloc::string::String>|deserialize_string|deserialize_byte_buf|StringVisitor|visit_string|<alloc::string::String as [^>]*(Deserialize|Decode|Readable|Unpackable|DeBin|DeJson|SchemaRead)|<impl .*(Deserialize|Decode|Readable|Unpackable|DeBin|DeJson|SchemaRead)\b.* for alloc::string::String>|<str as alloc::borrow::ToOwned>|<\[T\] as alloc::borrow::ToOwned>|alloc::str::<impl str>::to_owned|<alloc::string::String as core::convert::From<&str>>|encoding::string::merge|read_string|decode_string|drop_in_place<alloc::string::String>|drop_in_place<alloc::vec::Vec<alloc::string::String>>"
);
// Numbers written or read as text: ryu, itoa, std's formatting and parsing, and the JSON
// engines' number routines.
class!(
    NUMBERS,
    r"\bryu::|\bzmij::|\bitoa::|\bdtoa::|lexical|core::fmt::float|core::fmt::num|core::num::dec2flt|core::num::flt2dec|core::num::diy_float|parse_number|parse_integer|parse_decimal|parse_exponent|parse_long_integer|f64_from_parts|f64_long_from_parts|format_float|serialize_f64|serialize_f32|write_f64|write_f32|::write_[iu](8|16|32|64|128|size)\b|::parse_(u|i|f)(8|16|32|64|size)\b|sonic_rs::util::num|simd_json::numberparse"
);
// UTF-8 validation.
class!(
    UTF8,
    r"core::str::converts::from_utf8|core::str::validations::|run_utf8_validation|simdutf8::|utf8_validat|from_utf8_lossy"
);
// SipHash, std's default hasher.
class!(
    SIPHASH,
    r"core::hash::sip::|SipHasher|std::hash::random::DefaultHasher|std::hash::random::RandomState"
);
// Work that describes a type (its properties, schema or pattern), done when it runs: the
// reflection study's introspection, a regex compiled, a schema built.
class!(
    REPEATED,
    r"(?i)introspect|::discover_|type_info|get_methods|property_getter|decapitali[sz]e|schema_of\b|schema_for\b|build_schema|describe_type|regex::regex::\w+::Regex::new|regex_automata::meta::regex::Builder::build"
);
// The codec's encode (its `encode_to_slice` and `encode_message` too) and the measured loops
// that only encode.
class!(
    ENCODE_SIDE,
    r"as serprof_api::codec::Codec<T>>::encode|::serialize_loop$|::document_serialize_loop$|::message_encode_loop$"
);

/// Which half of an operation a sample is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    /// Only samples under the codec's encode.
    Encode,
    /// Only samples outside it (decoding, and dropping what was decoded).
    Decode,
    /// Every sample.
    Any,
}

impl Direction {
    fn holds(self, frames: &[&str]) -> bool {
        let encode = || frames.iter().any(|f| ENCODE_SIDE.matches(f));
        match self {
            Direction::Any => true,
            Direction::Encode => encode(),
            Direction::Decode => !encode(),
        }
    }
}

/// The samples of a profile a finding rests on: how many, out of how many, and the functions
/// that hold them (the outermost matching frame of each sample, shortened), largest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Hits {
    pub samples: u64,
    pub total: u64,
    pub functions: Vec<(String, u64)>,
    /// The same reading of the profile as timed, serprof's allocation wrappers in it: samples
    /// and total (zero when not read; [`Hits::as_timed`]).
    pub timed: (u64, u64),
}

impl Hits {
    pub(super) fn share(&self) -> f64 {
        self.samples as f64 / self.total.max(1) as f64
    }

    /// The samples and total of the profile as timed, for the bound: the timed loop runs
    /// through serprof's allocation wrappers, so removing a hot spot that allocates removes
    /// their time too.
    pub(super) fn as_timed(&self) -> (u64, u64) {
        match self.timed {
            (_, 0) => (self.samples, self.total),
            timed => timed,
        }
    }
}

/// `read` of the program's profile (`program`: [`without_instrumentation`]), with the same
/// reading of the profile as timed (`timed`) for its bound.
pub(super) fn read_both(program: &Folded, timed: &Folded, read: impl Fn(&Folded) -> Hits) -> Hits {
    let of_timed = read(timed);
    Hits {
        timed: (of_timed.samples, of_timed.total),
        ..read(program)
    }
}

/// The samples on `side` with a frame of one of `classes` (inclusive: the code it calls
/// counts), and when `under` is given, only those whose matching frame lies beneath a frame of
/// `under`.
pub(super) fn hits(
    folded: &Folded,
    classes: &[&Class],
    under: Option<&Class>,
    side: Direction,
) -> Hits {
    count(folded, classes, under, side, false)
}

/// [`hits`] with no owner class, each sample named by its innermost matching frame: where the
/// classes nest (a map's insert calling SipHash), the inner function says more.
pub(super) fn hits_innermost(folded: &Folded, classes: &[&Class], side: Direction) -> Hits {
    count(folded, classes, None, side, true)
}

fn count(
    folded: &Folded,
    classes: &[&Class],
    under: Option<&Class>,
    side: Direction,
    innermost: bool,
) -> Hits {
    let mut out = Hits {
        total: folded.total(),
        ..Hits::default()
    };
    let mut by_function = BTreeMap::<String, u64>::new();
    for (frames, count) in folded.iter() {
        // The first frame is the configuration's name, not a function.
        let frames = &frames[1.min(frames.len())..];
        if !side.holds(frames) {
            continue;
        }
        let start = match under {
            Some(u) => match frames.iter().position(|f| u.matches(f)) {
                Some(i) => i,
                None => continue,
            },
            None => 0,
        };
        let matching = |f: &&str| classes.iter().any(|c| c.matches(f));
        let found = match innermost {
            false => frames[start..].iter().position(matching),
            true => frames[start..].iter().rposition(matching),
        };
        let Some(at) = found.map(|i| start + i) else {
            continue;
        };
        out.samples += count;
        // The function named is the innermost owner (`under`'s frame) above the match when
        // there is one, else the matching frame.
        let named = match under {
            Some(u) => frames[start..at]
                .iter()
                .rev()
                .find(|f| u.matches(f))
                .copied()
                .unwrap_or(frames[start]),
            None => frames[at],
        };
        *by_function.entry(short_name(named)).or_insert(0) += count;
    }
    let mut functions: Vec<(String, u64)> = by_function.into_iter().collect();
    functions.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out.functions = functions;
    out
}

/// The samples of a hot spot that allocates, with its share of the frees: frees happen where
/// a value is dropped, away from the frames that allocated it, so the side's samples in
/// [`FREE`] are shared out in proportion to the side's allocating samples under the hot spot
/// (`hot`, a [`hits`] of the hot spot on `side`).
pub(super) fn with_frees(
    folded: &Folded,
    hot: Hits,
    hot_classes: &[&Class],
    side: Direction,
) -> Hits {
    let frees = hits(folded, &[&FREE], None, side);
    let all_allocating = hits(folded, &[&ALLOCATOR], None, side)
        .samples
        .saturating_sub(frees.samples);
    let hot_allocating = hits_beneath(folded, hot_classes, &ALLOCATOR, side);
    let hot_frees_already = hits_beneath(folded, hot_classes, &FREE, side);
    let hot_allocating = hot_allocating.saturating_sub(hot_frees_already);
    if all_allocating == 0 || hot_allocating == 0 {
        return hot;
    }
    let outside = frees.samples.saturating_sub(hot_frees_already);
    let share = hot_allocating as f64 / all_allocating as f64;
    let extra = (outside as f64 * share.min(1.0)).round() as u64;
    let mut out = hot;
    out.samples = (out.samples + extra).min(out.total);
    if extra > 0 {
        out.functions
            .push(("frees of what it allocated (shared out)".into(), extra));
    }
    out
}

/// The samples on `side` with a frame of `inner` beneath a frame of one of `outer`.
fn hits_beneath(folded: &Folded, outer: &[&Class], inner: &Class, side: Direction) -> u64 {
    folded
        .iter()
        .filter_map(|(frames, count)| {
            let frames = &frames[1.min(frames.len())..];
            if !side.holds(frames) {
                return None;
            }
            let at = frames
                .iter()
                .position(|f| outer.iter().any(|c| c.matches(f)))?;
            frames[at..]
                .iter()
                .any(|f| inner.matches(f))
                .then_some(count)
        })
        .sum()
}

/// The frames just above the allocator in each sample that reaches it (who allocates), with
/// their samples, largest first.
pub(super) fn allocating_callers(folded: &Folded) -> Vec<(String, u64)> {
    let mut by = BTreeMap::<String, u64>::new();
    for (frames, count) in folded.iter() {
        let frames = &frames[1.min(frames.len())..];
        if let Some(i) = frames.iter().position(|f| ALLOCATOR.matches(f)) {
            let mut j = i;
            while j > 0 && (ALLOCATOR.matches(frames[j - 1]) || is_plumbing(frames[j - 1])) {
                j -= 1;
            }
            if j >= 1 {
                *by.entry(short_name(frames[j - 1])).or_insert(0) += count;
            }
        }
    }
    let mut v: Vec<(String, u64)> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Frames between a caller and the allocator that name no decision of the caller's (`Vec`'s
/// and `Box`'s own code).
fn is_plumbing(frame: &str) -> bool {
    frame.starts_with("alloc::raw_vec")
        || frame.starts_with("<alloc::raw_vec")
        || frame.starts_with("alloc::alloc::")
        || frame.starts_with("alloc::vec::Vec<T,A>::with_capacity")
        || frame.starts_with("alloc::boxed::")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(lines: &[(&str, u64)]) -> Folded {
        let mut f = Folded::default();
        for (stack, n) in lines {
            f.stacks.insert(format!("c;{stack}"), *n);
        }
        f
    }

    #[test]
    fn a_hot_spot_is_read_without_serprofs_wrappers_and_bounded_with_them() {
        let wrapper = "<serprof::measure::alloc::CountingAlloc<A> as core::alloc::global::GlobalAlloc>::alloc";
        let timed = folded(&[
            ("main;hot;malloc", 40),
            (&format!("main;hot;{wrapper}"), 20),
            ("main;other", 40),
        ]);
        let program = without_instrumentation(&timed);
        let h = read_both(&program, &timed, |p| {
            hits(p, &[&ALLOCATOR], None, Direction::Any)
        });
        assert_eq!((h.samples, h.total), (40, 80));
        assert_eq!(h.as_timed(), (60, 100));
        let alone = hits(&program, &[&ALLOCATOR], None, Direction::Any);
        assert_eq!(alone.as_timed(), (40, 80));
    }

    #[test]
    fn every_class_compiles_and_reads_the_names_it_is_for() {
        let cases: [(&LazyLock<Class>, &str); 15] = [
            (&ALLOCATOR, "_int_malloc"),
            // Rust's allocation shims, as current toolchains name them.
            (&ALLOCATOR, "__rustc::__rust_alloc"),
            (&ALLOCATOR, "__rustc::__rust_no_alloc_shim_is_unstable_v2"),
            (&FREE, "__rustc::__rust_dealloc"),
            (&ALLOCATOR, "<serprof::measure::alloc::CountingAlloc<A> as core::alloc::global::GlobalAlloc>::alloc"),
            (&GROWTH, "alloc::raw_vec::finish_grow"),
            (&OWNED, "<serde_core::de::impls::StringVisitor as serde_core::de::Visitor>::visit_str"),
            (&NUMBERS, "ryu::pretty::format64"),
            (&UTF8, "core::str::converts::from_utf8"),
            (&SIPHASH, "<core::hash::sip::Hasher<S> as core::hash::Hasher>::write"),
            (&MAP_OPS, "hashbrown::map::HashMap<K,V,S,A>::insert"),
            (&REPEATED, "serprof_engines::casestudy::reflect_json::introspect::introspect"),
            (&ENCODE_SIDE, "<serprof_engines::external::serde_json::SerdeJson as serprof_api::codec::Codec<T>>::encode"),
            (&ENCODE_SIDE, "<serprof_engines::external::prost_rsb::ProstRsb<T> as serprof_api::codec::Codec<T>>::encode_message"),
            (&ENCODE_SIDE, "serprof_api::workload::values::message_encode_loop"),
        ];
        for (class, frame) in cases {
            assert!(class.matches(frame), "{frame}");
        }
        // wincode's trait is not a schema built at run time; a binary writer's integers are not
        // text.
        assert!(!REPEATED.matches("<u32 as wincode::schema::SchemaWrite>::write"));
        assert!(!NUMBERS.matches("<postcard::ser::Serializer as serde::Serializer>::serialize_u64"));
        // A message decode is the decode side.
        assert!(!ENCODE_SIDE.matches(
            "<serprof_engines::external::prost_rsb::ProstRsb<T> as serprof_api::codec::Codec<T>>::decode_message"
        ));
        assert!(!ENCODE_SIDE.matches("serprof_api::workload::values::message_decode_loop"));
        // The binary engines' string readers in both of their demangled forms; a borrowed `&str`
        // read for another type (a base64 byte array, a field name) is not a String made.
        for reader in [
            "<impl bincode::de::Decode<Context> for alloc::string::String>::decode",
            "<impl speedy::readable::Readable<C> for alloc::string::String>::read_from",
            "<impl msgpacker::Unpackable for alloc::string::String>::unpack",
            "<alloc::string::String as borsh::de::BorshDeserialize>::deserialize_reader",
        ] {
            assert!(OWNED.matches(reader), "{reader}");
        }
        for other in [
            "<&mut serde_json::de::Deserializer<R> as serde_core::de::Deserializer>::deserialize_str",
            "<my::ByteArray::deserialize::V as serde_core::de::Visitor>::visit_str",
            "<impl bincode::enc::Encode for alloc::string::String>::encode",
        ] {
            assert!(!OWNED.matches(other), "{other}");
        }
    }

    #[test]
    fn serprofs_counting_of_allocations_is_left_out() {
        let counting =
            "<serprof::measure::alloc::CountingAlloc<A> as core::alloc::global::GlobalAlloc>::alloc";
        let f = folded(&[
            (&format!("decode;__rustc::__rust_alloc;{counting}"), 2),
            (
                &format!("decode;__rustc::__rust_alloc;{counting};malloc"),
                3,
            ),
            ("decode;visit_map", 5),
        ]);
        let kept = without_instrumentation(&f);
        assert_eq!(kept.total(), 8);
        assert_eq!(hits(&kept, &[&ALLOCATOR], None, Direction::Any).samples, 3);
    }

    #[test]
    fn innermost_naming_names_the_hasher_inside_the_map() {
        let f = folded(&[
            ("decode;hashbrown::map::HashMap<K,V,S,A>::insert;<core::hash::sip::Hasher<S> as core::hash::Hasher>::write", 3),
            ("decode;hashbrown::map::HashMap<K,V,S,A>::insert", 2),
            ("decode;visit_map", 5),
        ]);
        let classes: [&Class; 2] = [&MAP_OPS, &SIPHASH];
        let inner = hits_innermost(&f, &classes, Direction::Any);
        assert_eq!((inner.samples, inner.total), (5, 10));
        // SipHash's `write` holds its 3 samples; the insert keeps only its own 2.
        assert_eq!(inner.functions[0].1, 3, "{inner:?}");
        assert!(inner.functions[1].0.contains("insert"), "{inner:?}");
        assert_eq!(inner.functions[1].1, 2, "{inner:?}");
        let outer = hits(&f, &classes, None, Direction::Any);
        assert_eq!(outer.functions.len(), 1, "{outer:?}");
    }

    #[test]
    fn hits_count_a_class_on_one_side_and_name_its_owner() {
        let f = folded(&[
            ("X as serprof_api::codec::Codec<T>>::encode;ryu::pretty::format64", 3),
            ("X as serprof_api::codec::Codec<T>>::decode;serde_json::de::Deserializer<R>::parse_integer", 5),
            ("X as serprof_api::codec::Codec<T>>::decode;visit_map", 2),
        ]);
        let encode = hits(&f, &[&NUMBERS], None, Direction::Encode);
        assert_eq!((encode.samples, encode.total), (3, 10));
        let decode = hits(&f, &[&NUMBERS], None, Direction::Decode);
        assert_eq!(decode.samples, 5);
        assert_eq!(hits(&f, &[&NUMBERS], None, Direction::Any).samples, 8);
        let owned = folded(&[
            (
                "decode;serde::de::impls::StringVisitor::visit_str;malloc",
                4,
            ),
            ("decode;parse_str;malloc", 6),
        ]);
        let h = hits(&owned, &[&ALLOCATOR], Some(&OWNED), Direction::Decode);
        assert_eq!(h.samples, 4);
        assert_eq!(h.functions[0].1, 4);
    }

    #[test]
    fn frees_are_shared_out_by_where_the_memory_was_allocated() {
        // 6 samples allocate under the hot spot, 2 elsewhere; 4 free in a drop: 3 are its.
        let f = folded(&[
            ("decode;my::introspect;malloc", 6),
            ("decode;my::other;malloc", 2),
            ("decode;core::ptr::drop_in_place<X>;free", 4),
            ("decode;my::introspect;my::sort", 8),
        ]);
        let hot = hits(&f, &[&REPEATED], None, Direction::Any);
        assert_eq!(hot.samples, 14);
        let with = with_frees(&f, hot, &[&REPEATED], Direction::Any);
        assert_eq!(with.samples, 17);
    }

    #[test]
    fn allocating_callers_skip_vecs_own_code() {
        let f = folded(&[
            ("decode;my::read_name;alloc::raw_vec::RawVecInner<A>::with_capacity_in;alloc::alloc::alloc;malloc", 3),
            ("decode;my::read_tags;malloc", 1),
        ]);
        let callers = allocating_callers(&f);
        assert_eq!(callers[0], ("my::read_name".to_string(), 3));
        assert_eq!(callers[1], ("my::read_tags".to_string(), 1));
    }
}
