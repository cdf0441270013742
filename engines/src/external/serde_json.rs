//! serde_json (the Jackson of Rust), with derived `Serialize`/`Deserialize`.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::{with_serde_bytes, SerdeBytes};
use serprof_api::{Codec, CodecError};

/// The version of serde_json this build compiled, from the lock file that resolved it.
pub fn version() -> &'static str {
    crate::versions::of("serde_json", "1.")
}

/// serde_json with byte arrays written as `bytes`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SerdeJson {
    /// How byte arrays are written.
    pub bytes: SerdeBytes,
}

impl<T: Serialize + DeserializeOwned> Codec<T> for SerdeJson {
    fn encode(&mut self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        with_serde_bytes(self.bytes, || serde_json::to_writer(&mut *out, value))
            .map_err(CodecError::encode)
    }

    fn encode_to_slice<'a>(&'a mut self, value: &T, out: &'a mut [u8]) -> super::Written<'a> {
        super::into_slice(out, |w| {
            with_serde_bytes(self.bytes, || serde_json::to_writer(w, value))
        })
    }

    fn decode(&mut self, bytes: &mut [u8]) -> Result<T, CodecError> {
        with_serde_bytes(self.bytes, || serde_json::from_slice(bytes)).map_err(CodecError::decode)
    }
}

/// serde_json as a study's engine on `T`, byte arrays written as `bytes`. It gives its study
/// the JSON view of `serprof decode --json`: the value as serde_json writes it, indented.
pub fn engine<T: super::SerdeValue>(bytes: SerdeBytes) -> serprof_api::Engine<T> {
    super::described(
        "serde_json",
        version(),
        "serde_json|serde(_core)?::",
        move || SerdeJson { bytes },
    )
    .call("serde_json::to_writer (serialize: io::Write over one slice), serde_json::from_slice")
    .json()
    .fields(super::recorded(bytes, |t, sink| {
        serde_json::to_writer(sink, t)
    }))
    .json_view(move |v: &T| {
        with_serde_bytes(bytes, || serde_json::to_string_pretty(v)).map_err(CodecError::encode)
    })
}

// What serde_json cannot do for the Order model (the Jackson mapping, as `casestudy::bytes_json`
// describes it):
// - decimals are written through `f64` (`218.62`, but `2.0` for `2.00`): see `model::decimal`;
// - `Vec<u8>` is a sequence of integers unless a configuration picks base64 (`SerdeBytes`);
// - shared references (`Arc`) are written once per use and come back as separate allocations.
