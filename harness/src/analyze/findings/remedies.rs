//! The remedy each finding names: the attribute, crate or call a Rust user applies, chosen from
//! what the evidence says (which routine formats the numbers, which type holds the time).

use crate::model::diagnosis::DiagnosisKind;

/// A field of one's own type that takes most of the payload; `one_piece` when the split saw it
/// written as one byte string already (no `element_by_element` on it).
pub(crate) fn large_field(rust_type: &str, one_piece: bool) -> String {
    let what = if is_bytes(rust_type) && one_piece {
        "its bytes are already written in one piece: compress them (zstd, a compressed image format), or send them apart from the value (by reference, or in a message of its own)"
    } else if is_bytes(rust_type) {
        "write it as one byte string (`#[serde(with = \"serde_bytes\")]`; base64 text in JSON), compress it, or send it apart from the value (by reference, or in a message of its own)"
    } else if is_text(rust_type) {
        "shorten what it holds (an enum or integer code for a closed set of texts), compress the payload, or send it apart from the value"
    } else {
        "it is where the bytes are: give it a smaller representation (`#[serde(with = ...)]`, integers for numeric text, `serde_bytes` for bytes) or send it apart from the value"
    };
    what.to_string()
}

/// A type whose own code holds most of the samples: the remedy of the cost its kind of type
/// usually carries.
pub(crate) fn large_type(rust_type: &str) -> String {
    if is_bytes(rust_type) {
        return "a byte array: write it in one piece (`#[serde(with = \"serde_bytes\")]`; base64 text in JSON)".into();
    }
    if is_text(rust_type) {
        return "text: copied (and escaped, in a text format) on encode; decoded into owned Strings, borrow it (`&'de str`, `Cow<'de, str>` with `#[serde(borrow)]`) or use a zero-copy engine (rkyv); shorter texts or integer codes for a closed set of them".into();
    }
    if rust_type.starts_with("HashMap") {
        return "a map: hash with a faster hasher (`rustc_hash::FxBuildHasher`, `foldhash`) or store it as a `BTreeMap` or a `Vec<(K, V)>`".into();
    }
    if matches!(rust_type, "f64" | "f32") {
        return "floats: in a text format they are formatted by ryu and parsed digit by digit; a binary format (postcard, bincode) writes their 8 bytes".into();
    }
    format!(
        "the samples of `{rust_type}`'s own code, with what the compiler inlined into it (its fields' code and the engine's writer or reader): `serprof tree --by type` and the flame graph show which part holds them, and that part's finding or remedy applies (`serde_bytes` for bytes written element by element, borrowing for text, a faster hasher for maps); else a cheaper representation of the type with `#[serde(with = ...)]`"
    )
}

/// Owned strings made on decode by `engine`, by the code that makes them (`functions`, largest
/// first): serde's borrowing where serde's visitors make them and the engine reads borrowed
/// values, the engine's own borrowed read where it has one, a zero-copy engine otherwise.
pub(super) fn owned_strings(engine: &str, functions: &[(String, u64)]) -> String {
    let top = functions.first().map(|(f, _)| f.as_str()).unwrap_or("");
    // Engines that read through `io::Read` or into owned messages only: nothing to borrow from.
    let never_borrows = [
        "ciborium",
        "borsh",
        "prost",
        "protobuf",
        "bilrost",
        "nanoserde",
    ]
    .iter()
    .any(|e| engine.starts_with(e));
    if never_borrows {
        return format!(
            "{engine} makes an owned String per text field and cannot decode borrowed ones (here: {top}): an engine that borrows (`&'de str` with `#[serde(borrow)]` under postcard, bincode or serde_json's `from_slice`), or a zero-copy engine (rkyv's access)"
        );
    }
    let serde = ["serde", "Visitor", "de::impls", "deserialize_string"]
        .iter()
        .any(|p| top.contains(p));
    if serde {
        return "borrow from the input instead of allocating: `&'de str` or `Cow<'de, str>` fields with `#[serde(borrow)]` (decoding from a buffer that outlives the value: `serde_json::from_slice`, `postcard::from_bytes`), `&'de [u8]` with `serde_bytes` for bytes, or a zero-copy engine (rkyv's access)".into();
    }
    format!(
        "the engine's own reader makes an owned String per field (here: {top}): decode into a borrowed type (`&'a str` fields) where the engine reads one (bincode 2's `BorrowDecode`, speedy, wincode, minicbor, msgpacker), or use a zero-copy engine (rkyv's access)"
    )
}

/// An output buffer grown by reallocation on encode.
pub(super) const BUFFER_REGROWTH: &str = "write into one buffer reserved once: `Vec::with_capacity` or `reserve` with a size hint (the last payload's length), `serde_json::to_writer(&mut out, ..)` into the caller's buffer rather than `to_vec` and a copy, and keep that buffer across calls (`out.clear()`)";

/// Numbers as text, by the routine that holds them.
pub(super) fn numbers(functions: &[(String, u64)]) -> String {
    let top = functions.first().map(|(f, _)| f.as_str()).unwrap_or("");
    if top.contains("fmt::") || top.contains("fmt::float") || top.contains("fmt::num") {
        return format!(
            "numbers go through `core::fmt` (`write!`, `to_string`, `{{}}`): format them with `itoa::Buffer` and `ryu::Buffer` (or zmij, which the serde_json of this build writes floats with), or use a binary format (postcard, bincode) that writes their bytes (here: {top})"
        );
    }
    if top.contains("dec2flt") || top.contains("from_str") {
        return format!(
            "numbers are parsed with `str::parse`: parse them in the JSON engine's own number reader (serde_json, sonic-rs), or with `lexical-core`, or use a binary format (here: {top})"
        );
    }
    format!(
        "numbers are written and read as decimal text, already by the fastest routines the JSON engines have (ryu, itoa, their own parsers; here: {top}): fewer numbers (a byte array as base64, integers instead of decimal strings) or a binary format (postcard, bincode) that writes them as bytes"
    )
}

/// UTF-8 validation on decode.
pub(super) const UTF8: &str = "validate with SIMD: `simdutf8::basic::from_utf8`, or an engine that does (simd-json, sonic-rs); keep bytes that are not text as `Vec<u8>` with `serde_bytes` (no validation); `std::str::from_utf8_unchecked` only for input validated before";

/// SipHash on map keys.
pub(super) const MAP_HASHING: &str = "std's `HashMap` hashes each key with SipHash: use a faster hasher (`HashMap<K, V, rustc_hash::FxBuildHasher>`, `foldhash`, `ahash`; for keys no attacker chooses), a `BTreeMap` (no hashing), or a `Vec<(K, V)>` when the map is only walked";

/// Names in a self-describing payload.
pub(super) const FIELD_NAMES: &str = "the payload spells every field and variant name: shorten them (`#[serde(rename = \"n\")]`), tag enums with integers (`serde_repr`), or use a positional format that writes no names (postcard, bincode; rmp-serde's default struct-as-array)";

/// The allocator's share.
pub(super) const ALLOCATOR: &str = "allocate less (borrow on decode, reuse buffers, `with_capacity`), or try a faster global allocator (`#[global_allocator] static A: mimalloc::MiMalloc` or `tikv_jemallocator::Jemalloc`; `serprof run --allocators system,jemalloc,mimalloc` measures each)";

/// Work done per value that depends only on the type.
pub(super) const REPEATED_WORK: &str = "this work depends on the type, not the value: do it once per type (a `static` `std::sync::LazyLock` or `OnceLock`, a cache keyed by `TypeId` looked up once per call), or let a derive do it at compile time (serde's derive does)";

/// Values changed by a round trip, for an engine.
pub(super) fn values_changed(engine: &str, floats: bool) -> String {
    match (engine, floats) {
        ("serde_json", true) => "turn on serde_json's `float_roundtrip` feature (`serde_json = { version = \"1\", features = [\"float_roundtrip\"] }`): its default float parser can be one unit in the last place off; the feature parses correctly rounded".into(),
        (_, true) => "parse floats correctly rounded (`str::parse::<f64>`, `lexical-core`; serde_json's `float_roundtrip` feature), or write their bits in a binary format".into(),
        _ => "keep numbers as the engine can hold them exactly (an `arbitrary_precision` number, a string, or a type wide enough)".into(),
    }
}

/// What each kind reads, for `explain` and the guide.
pub(crate) fn reads(kind: DiagnosisKind) -> &'static str {
    match kind {
        DiagnosisKind::ElementByElement => "the payload's split by field (u8 elements), and the profile by type",
        DiagnosisKind::LargeField => "the payload's split by field",
        DiagnosisKind::LargeType => "the CPU profile by type",
        DiagnosisKind::OwnedStrings => "CPU samples in allocation and copying beneath a String or Vec built on decode; the fields of those types",
        DiagnosisKind::BufferRegrowth => "CPU samples in Vec growth and realloc under encode; reallocations per operation",
        DiagnosisKind::Numbers => "CPU samples in number formatting and parsing (ryu, itoa, core::fmt, dec2flt, the JSON engines' number readers) of a text format",
        DiagnosisKind::Utf8Validation => "CPU samples in UTF-8 validation on decode",
        DiagnosisKind::MapHashing => "CPU samples in SipHash, and in the map operations its rounds are inlined into",
        DiagnosisKind::FieldNames => "the bytes of field and variant names in the payload's split by field",
        DiagnosisKind::Allocator => "CPU samples in the allocator; with --allocators, the other allocators' rows",
        DiagnosisKind::RepeatedWork => "CPU samples in type-describing work (introspection, schemas, regex compilation) inside the measured loop",
        DiagnosisKind::ValuesChanged => "verification's round trip of every value",
    }
}

/// `Vec<u8>`, `[u8; N]`, `ByteArray`, `Bytes`.
fn is_bytes(t: &str) -> bool {
    t.contains("u8>") || t.starts_with("[u8") || t.contains("Byte") || t == "bytes" || t == "u8"
}

/// `String`, `&str`, `Cow<str>`, `Vec<String>`.
fn is_text(t: &str) -> bool {
    t == "String" || t.contains("str") || t.contains("String")
}
