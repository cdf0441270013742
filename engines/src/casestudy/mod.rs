//! Hand-written engines of the case studies.
//!
//! - [`bytes_json`]: a JSON engine for the Order model written the way Apache Fory JSON is
//!   (Ingo Kegel, "How we made Apache Fory JSON 4.5 times faster", ej-technologies blog,
//!   2026-09-07), whose byte-array codec is an option.
//! - [`reflect_json`]: a run-time-reflection serializer, after the Jackson-like one of the
//!   Korean blog post "Jackson 직접 구현해보기 (JSON 직렬화기 구현)" ("Implementing Jackson
//!   ourselves: a JSON serializer", part 2 of a series on Jackson's internals).
//! - `json_text`: the JSON text both write the same way (string escapes, integers).
//! - [`export`]: the Order dataset as Jackson-mapping JSON, and its facts (`serprof dataset`).

pub mod bytes_json;
pub mod export;
#[doc(hidden)]
pub mod json_text;
pub mod reflect_json;

/// The field split of our JSON engines: their payload read by its members, the root named
/// `root`, the objects at `maps` read as maps (`serprof_api::fields::json_text`).
pub(crate) fn json_fields<T>(
    root: &'static str,
    maps: &'static [&'static str],
) -> serprof_api::fields::FieldSplit<T> {
    serprof_api::fields::FieldSplit::Payload(std::sync::Arc::new(move |payload: &[u8]| {
        serprof_api::fields::json_text(root, maps, payload)
    }))
}
