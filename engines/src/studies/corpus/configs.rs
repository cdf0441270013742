//! The corpus study's configurations: per document, each engine variant on each operation,
//! built from the document's file in the worker that measures it.

use std::sync::Arc;

use serde::Serialize;

use super::engines::{
    duplicate_keys, BorrowedCodec, CborDom, Engine, Prepared, Probe, RmpDom, SerdeJsonDom,
    SerdeJsonSlice, SerdeJsonStr, SimdOwned, SimdSerde, SonicDom, SonicRs,
};
use super::typed::{self, Standard};
use super::{sha256_hex, standard_of, DocumentRecord, NAME};
use crate::external;
use serprof_api::__private::Finding;
use serprof_api::__private::{Config, ConfigInfo, FramePattern};
use serprof_api::__private::{DocumentCodec, Documents, Workload};
use serprof_api::CodecError;
use serprof_api::{Format, Operation};

/// Which engine, on which value, in a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    TypedSerdeJson,
    TypedSerdeJsonStr,
    TypedSonic,
    TypedSimd,
    DomSerdeJson,
    DomSonic,
    DomSimdOwned,
    DomSimdBorrowed,
    MsgpackRmp,
    CborCiborium,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::TypedSerdeJson => "typed-serde_json",
            Variant::TypedSerdeJsonStr => "typed-serde_json-str",
            Variant::TypedSonic => "typed-sonic-rs",
            Variant::TypedSimd => "typed-simd-json",
            Variant::DomSerdeJson => "dom-serde_json",
            Variant::DomSonic => "dom-sonic-rs",
            Variant::DomSimdOwned => "dom-simd-json",
            Variant::DomSimdBorrowed => "dom-simd-json-borrowed",
            Variant::MsgpackRmp => "msgpack-rmp-serde",
            Variant::CborCiborium => "cbor-ciborium",
        }
    }

    fn engine(self) -> (&'static str, &'static str, &'static str) {
        use Variant::*;
        match self {
            TypedSerdeJson | TypedSerdeJsonStr | DomSerdeJson => (
                "serde_json",
                external::serde_json::version(),
                "serde_json|serde(_core)?::",
            ),
            TypedSonic | DomSonic => ("sonic-rs", external::sonic_rs::version(), "sonic_rs"),
            TypedSimd | DomSimdOwned | DomSimdBorrowed => (
                "simd-json",
                external::simd_json::version(),
                "simd_json|value_trait|halfbrown",
            ),
            MsgpackRmp => (
                "rmp-serde",
                external::rmp_serde::version(),
                "rmp_serde|rmp::|serde(_core)?::|serde_json::value",
            ),
            CborCiborium => (
                "ciborium",
                external::ciborium::version(),
                "ciborium|serde(_core)?::|serde_json::value",
            ),
        }
    }

    /// The calls it makes to read and write, as the libraries name them.
    fn call(self) -> &'static str {
        match self {
            Variant::TypedSerdeJson => "serde_json::from_slice, serde_json::to_writer",
            Variant::TypedSerdeJsonStr => "std::str::from_utf8 + serde_json::from_str",
            Variant::TypedSonic => "sonic_rs::from_slice, sonic_rs::to_writer",
            Variant::TypedSimd => "simd_json::serde::from_slice_with_buffers, simd_json::to_writer",
            Variant::DomSerdeJson => "serde_json::from_slice::<Value>, serde_json::to_writer",
            Variant::DomSonic => "sonic_rs::from_slice::<Value>, sonic_rs::to_writer",
            Variant::DomSimdOwned => "simd_json::to_owned_value_with_buffers, Writable::write",
            Variant::DomSimdBorrowed => "simd_json::to_borrowed_value_with_buffers",
            Variant::MsgpackRmp => "rmp_serde::from_slice, rmp_serde::encode::write_named",
            Variant::CborCiborium => "ciborium::from_reader, ciborium::into_writer",
        }
    }

    pub fn typed(self) -> bool {
        matches!(
            self,
            Variant::TypedSerdeJson
                | Variant::TypedSerdeJsonStr
                | Variant::TypedSonic
                | Variant::TypedSimd
        )
    }

    fn notes(self, doc: &DocumentRecord) -> String {
        let model = standard_of(doc)
            .map(|s| format!("typed model {}", s.type_name()))
            .unwrap_or_default();
        let what = match self {
            Variant::TypedSerdeJson => format!("{model}; serde_json::from_slice, to_writer"),
            Variant::TypedSerdeJsonStr => format!(
                "{model}; std::str::from_utf8 then serde_json::from_str (UTF-8 checked up front, not while scanning)"
            ),
            Variant::TypedSonic => format!(
                "{model}; sonic_rs::from_slice (UTF-8 validated), to_writer; built without -C target-cpu=native"
            ),
            Variant::TypedSimd => format!(
                "{model}; simd_json::serde::from_slice_with_buffers (in place, buffers reused), to_writer"
            ),
            Variant::DomSerdeJson => "serde_json::Value (BTreeMap objects)".into(),
            Variant::DomSonic => "sonic_rs::Value; built without -C target-cpu=native".into(),
            Variant::DomSimdOwned => {
                "simd_json::OwnedValue (to_owned_value_with_buffers), its own writer".into()
            }
            Variant::DomSimdBorrowed => "simd_json::BorrowedValue, borrows the parsed buffer: parse only (the value cannot be held by the configuration that serialises)".into(),
            Variant::MsgpackRmp => "serde_json::Value transcoded to MessagePack (rmp-serde, maps with keys); parse reads the MessagePack payload".into(),
            Variant::CborCiborium => "serde_json::Value transcoded to CBOR (ciborium); parse reads the CBOR payload".into(),
        };
        format!("{what}; a parse copies its payload first, inside the timed loop (simd-json parses in place)")
    }
}

/// The (operation, variant) pairs of a document: typed ones for a standard document.
pub fn plan(doc: &DocumentRecord) -> Vec<(Operation, Variant)> {
    use Operation::{Parse, RoundTrip, Serialize};
    use Variant::*;
    let mut all = vec![
        (Parse, TypedSerdeJson),
        (Parse, TypedSerdeJsonStr),
        (Parse, TypedSonic),
        (Parse, TypedSimd),
        (Parse, DomSerdeJson),
        (Parse, DomSonic),
        (Parse, DomSimdOwned),
        (Parse, DomSimdBorrowed),
        (Parse, MsgpackRmp),
        (Parse, CborCiborium),
        (Serialize, TypedSerdeJson),
        (Serialize, TypedSonic),
        (Serialize, TypedSimd),
        (Serialize, DomSerdeJson),
        (Serialize, DomSonic),
        (Serialize, DomSimdOwned),
        (Serialize, MsgpackRmp),
        (Serialize, CborCiborium),
        (RoundTrip, DomSerdeJson),
        (RoundTrip, DomSonic),
        (RoundTrip, DomSimdOwned),
    ];
    if standard_of(doc).is_none() {
        all.retain(|(_, v)| !v.typed());
    }
    all
}

pub(super) fn configs(doc: &DocumentRecord) -> Vec<Config> {
    let doc = Arc::new(doc.clone());
    plan(&doc)
        .into_iter()
        .map(|(operation, variant)| {
            let (engine, version, frames) = variant.engine();
            let format = match variant {
                Variant::MsgpackRmp | Variant::CborCiborium => Format::Binary,
                _ => Format::Json,
            };
            let info = ConfigInfo {
                study: NAME.into(),
                config: format!("{}.{}.{}", doc.name, operation.as_str(), variant.name()),
                engine: engine.into(),
                engine_version: version.into(),
                call: variant.call().into(),
                format,
                dataset: "document".into(),
                operation,
                engine_frames: FramePattern::builtin(frames),
                notes: variant.notes(&doc),
                document: Some((*doc).clone()),
                // The corpus feature builds every engine the study's variants use.
                feature: Some("corpus".into()),
                loop_function: serprof_api::__private::documents_loop(operation).into(),
                // The study's, given when the study takes the configuration.
                budget: None,
            };
            let doc = Arc::clone(&doc);
            Config::new(info, move || {
                Ok(Box::new(Documents::new(make(&doc, variant)?, operation)) as Box<dyn Workload>)
            })
        })
        .collect()
}

fn prepared<E: Engine>(
    engine: E,
    json: &[u8],
    duplicates: Option<Finding>,
) -> Result<Box<dyn DocumentCodec>, CodecError> {
    Ok(Box::new(Prepared::new(engine, json, duplicates)?))
}

/// A typed configuration of engine `F` on the model of `standard`.
fn typed<F: TypedEngine>(
    standard: Standard,
    json: &[u8],
) -> Result<Box<dyn DocumentCodec>, CodecError> {
    let dup = Some(duplicate_keys(F::engine::<Probe>()));
    match standard {
        Standard::Twitter => prepared(F::engine::<typed::Twitter>(), json, dup),
        Standard::Citm => prepared(F::engine::<typed::CitmCatalog>(), json, dup),
        Standard::Canada => prepared(F::engine::<typed::Canada>(), json, dup),
    }
}

/// An engine generic over the typed model.
trait TypedEngine {
    fn engine<T: Serialize + serde::de::DeserializeOwned + Send + 'static>(
    ) -> impl Engine<Value = T>;
}

macro_rules! typed_engine {
    ($marker:ident, $engine:ident) => {
        struct $marker;
        impl TypedEngine for $marker {
            fn engine<T: Serialize + serde::de::DeserializeOwned + Send + 'static>(
            ) -> impl Engine<Value = T> {
                $engine::<T>::default()
            }
        }
    };
}
typed_engine!(WithSerdeJson, SerdeJsonSlice);
typed_engine!(WithSerdeJsonStr, SerdeJsonStr);
typed_engine!(WithSonic, SonicRs);
typed_engine!(WithSimd, SimdSerde);

/// Builds a configuration's engine on its document: reads the file, checks its hash (the
/// study checked that text is JSON when it loaded the documents), and has the engine prepare its
/// value and payload. The reference parser reads it only when the configuration is verified.
fn make(doc: &DocumentRecord, variant: Variant) -> Result<Box<dyn DocumentCodec>, CodecError> {
    let json = std::fs::read(&doc.path)
        .map_err(|e| CodecError::setup(format_args!("{}: {e}", doc.path.display())))?;
    let hash = sha256_hex(&json);
    if hash != doc.sha256 {
        return Err(CodecError::setup(format_args!(
            "{} changed: SHA-256 was {}, is {hash}",
            doc.path.display(),
            doc.sha256
        )));
    }
    let standard = || {
        standard_of(doc).ok_or_else(|| {
            CodecError::setup(format_args!("{} has no typed model", doc.path.display()))
        })
    };
    let dup = |f: Finding| Some(f);
    match variant {
        Variant::TypedSerdeJson => typed::<WithSerdeJson>(standard()?, &json),
        Variant::TypedSerdeJsonStr => typed::<WithSerdeJsonStr>(standard()?, &json),
        Variant::TypedSonic => typed::<WithSonic>(standard()?, &json),
        Variant::TypedSimd => typed::<WithSimd>(standard()?, &json),
        Variant::DomSerdeJson => prepared(SerdeJsonDom, &json, dup(duplicate_keys(SerdeJsonDom))),
        Variant::DomSonic => prepared(SonicDom, &json, dup(duplicate_keys(SonicDom))),
        Variant::DomSimdOwned => prepared(
            SimdOwned::default(),
            &json,
            dup(duplicate_keys(SimdOwned::default())),
        ),
        Variant::DomSimdBorrowed => Ok(Box::new(BorrowedCodec::new(&json)?)),
        Variant::MsgpackRmp => prepared(RmpDom, &json, None),
        Variant::CborCiborium => prepared(CborDom, &json, None),
    }
}
