//! The `corpus` study: every JSON engine on real documents, the three standard documents of
//! nativejson-benchmark (`twitter.json`, `citm_catalog.json`, `canada.json`) and the user's
//! own, parsed, serialised and round-tripped, typed and as a DOM, and the DOM transcoded to
//! MessagePack and CBOR.
//!
//! The documents are files given at run time (`--corpus PATH`); the repository holds none. The
//! harness checks them ([`load`]: JSON, size, SHA-256), records them ([`DocumentRecord`], in the
//! run's settings, so every worker child and `--resume` see the same list) and registers them
//! in this process ([`register`]); the study exists in [`super::all`] only then. Each
//! configuration's constructor reads its file again, checks its hash, parses it with our
//! reference parser ([`reference`]) and has the engine parse it: verification compares the two.

pub mod engines;
pub mod reference;
pub mod typed;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{
    AnyCodec, Budget, Config, ConfigInfo, DatasetKind, Format, FramePattern, Operation, Question,
    Study, StudyInfo, StudyKind,
};
use crate::codec::CodecError;
use crate::external;
use crate::verify::Finding;
pub use engines::DocumentCodec;
use engines::{
    duplicate_keys, BorrowedCodec, CborDom, Engine, Prepared, Probe, RmpDom, SerdeJsonDom,
    SerdeJsonSlice, SerdeJsonStr, SimdOwned, SimdSerde, SonicDom, SonicRs,
};
use typed::Standard;

/// The study's name.
const NAME: &str = "corpus";

/// The default of `--corpus-max-mib`: a document's DOM takes several times its size in memory
/// and every configuration holds one beside its reference; 64 MiB stays well inside a worker's
/// 4 GiB address-space cap.
pub const DEFAULT_MAX_MIB: u64 = 64;

/// One document of a run: where it is, what it is (size and SHA-256) and the name its
/// configurations carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentRecord {
    /// The first part of its configurations' names: the file's stem, with its folder's name
    /// in front when two documents share a stem (`a_data`, `b_data`).
    pub name: String,
    /// The file, as an absolute path.
    pub path: PathBuf,
    pub bytes: u64,
    /// Lowercase hex.
    pub sha256: String,
}

impl DocumentRecord {
    /// The standard document this is, by its file name.
    pub fn standard(&self) -> Option<Standard> {
        Standard::of_file_name(&self.path.file_name()?.to_string_lossy())
    }
}

/// Why documents cannot be used: one line, naming the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CorpusError(pub String);

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The files of `--corpus` arguments: a file as it is, a folder's `.json` files in name order.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CorpusError> {
    let mut files = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)
            .map_err(|e| CorpusError(format!("--corpus {}: {e}", p.display())))?;
        if meta.is_dir() {
            let entries = std::fs::read_dir(p)
                .map_err(|e| CorpusError(format!("--corpus {}: {e}", p.display())))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "json"))
                .collect();
            if found.is_empty() {
                return Err(CorpusError(format!(
                    "--corpus {}: the folder has no .json file",
                    p.display()
                )));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    let mut absolute = Vec::new();
    for f in files {
        let f = f
            .canonicalize()
            .map_err(|e| CorpusError(format!("--corpus {}: {e}", f.display())))?;
        if !absolute.contains(&f) {
            absolute.push(f);
        }
    }
    Ok(absolute)
}

/// Reads and checks one document: its size against `max_bytes`, that it is JSON (the error
/// names the byte), its hash.
fn read_checked(path: &Path, max_bytes: u64) -> Result<(Vec<u8>, String), CorpusError> {
    let size = std::fs::metadata(path)
        .map_err(|e| CorpusError(format!("{}: {e}", path.display())))?
        .len();
    if size > max_bytes {
        return Err(CorpusError(format!(
            "{}: {:.1} MiB is over the limit of {} MiB (--corpus-max-mib)",
            path.display(),
            size as f64 / (1024.0 * 1024.0),
            max_bytes / (1024 * 1024)
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| CorpusError(format!("{}: {e}", path.display())))?;
    if let Err(e) = reference::parse(&bytes) {
        return Err(CorpusError(format!(
            "{}: not valid JSON: {e}",
            path.display()
        )));
    }
    let hash = sha256_hex(&bytes);
    Ok((bytes, hash))
}

/// A name part made of letters, digits, `_` and `-` only.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Names for the files: the stem, or `folder_stem` for stems that more than one file has, and
/// a number after it if even that repeats.
fn names(files: &[PathBuf]) -> Vec<String> {
    let stem = |f: &PathBuf| clean(&f.file_stem().unwrap_or_default().to_string_lossy());
    let with_folder = |f: &PathBuf| {
        let folder = f
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| clean(&n.to_string_lossy()))
            .unwrap_or_default();
        format!("{folder}_{}", stem(f))
    };
    let first: Vec<String> = files.iter().map(stem).collect();
    let mut out: Vec<String> = files
        .iter()
        .zip(&first)
        .map(|(f, s)| {
            if first.iter().filter(|t| *t == s).count() > 1 {
                with_folder(f)
            } else {
                s.clone()
            }
        })
        .collect();
    for i in 0..out.len() {
        let n = out[..i].iter().filter(|t| **t == out[i]).count();
        if n > 0 {
            out[i] = format!("{}-{}", out[i], n + 1);
        }
    }
    out
}

/// Checks the documents of `--corpus` arguments and describes them.
pub fn load(paths: &[PathBuf], max_mib: u64) -> Result<Vec<DocumentRecord>, CorpusError> {
    let files = expand(paths)?;
    let max_bytes = max_mib.saturating_mul(1024 * 1024);
    let mut records = Vec::new();
    for (file, name) in files.iter().zip(names(&files)) {
        let (bytes, sha256) = read_checked(file, max_bytes)?;
        records.push(DocumentRecord {
            name,
            path: file.clone(),
            bytes: bytes.len() as u64,
            sha256,
        });
    }
    Ok(records)
}

/// Checks that recorded documents are still what they were (for `--resume`): same hash.
pub fn recheck(records: &[DocumentRecord]) -> Result<(), CorpusError> {
    for r in records {
        let bytes = std::fs::read(&r.path)
            .map_err(|e| CorpusError(format!("document {}: {e}", r.path.display())))?;
        let hash = sha256_hex(&bytes);
        if hash != r.sha256 {
            return Err(CorpusError(format!(
                "document {} changed since the run measured it: SHA-256 was {}, is {hash}",
                r.path.display(),
                r.sha256
            )));
        }
    }
    Ok(())
}

static REGISTERED: RwLock<Vec<DocumentRecord>> = RwLock::new(Vec::new());

/// Makes `records` this process's documents: the corpus study is then in [`super::all`] with
/// their configurations. The parent registers what `--corpus` (or the resumed run) gives; a
/// worker child registers what its settings carry.
pub fn register(records: Vec<DocumentRecord>) {
    match REGISTERED.write() {
        Ok(mut r) => *r = records,
        Err(poisoned) => *poisoned.into_inner() = records,
    }
}

/// This process's documents.
pub fn registered() -> Vec<DocumentRecord> {
    match REGISTERED.read() {
        Ok(r) => r.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    }
}

/// The corpus study of the registered documents, if any.
pub fn registered_study() -> Option<Study> {
    let docs = registered();
    (!docs.is_empty()).then(|| study(&docs))
}

/// Why a study of this name has no configurations in this process, when that is the reason
/// it is unknown: the corpus study without documents.
pub fn missing_reason(study: &str) -> Option<String> {
    (study == NAME && registered().is_empty()).then(|| {
        "the corpus study needs documents: give --corpus PATH (a .json file or a folder of them)"
            .to_string()
    })
}

/// The name of the study, for messages ("the corpus study is left out").
pub fn name() -> &'static str {
    NAME
}

/// Frames of the parsers' string and number scanning: serde_json's `parse_str`/`parse_number`
/// family, sonic-rs's `parse_string`/`parse_number` and its SIMD string scanners, simd-json's
/// stage 1 (the structural indexes it finds by scanning quotes and backslashes) and its
/// string and number parsers, and the float and integer parsers and printers they call
/// (`lexical`, `ryu`, `itoa`, std's `dec2flt`).
const SCAN_FRAMES: &str = "(?i)parse_str|parse_string|scan_str|skip_str|unescape|escape|\
    parse_number|parse_integer|parse_decimal|parse_float|parse_num|parse_exponent|number|\
    dec2flt|lexical|ryu|itoa|find_structural|stage1|str_from|from_utf8|validate_utf8|utf8";

/// The study for `docs`.
pub fn study(docs: &[DocumentRecord]) -> Study {
    Study {
        info: StudyInfo {
            name: NAME.into(),
            title: "Which JSON engine is fastest on these documents, and why".into(),
            source: "the three documents of Milo Yip's nativejson-benchmark (twitter, citm_catalog, canada), as the sonic-rs, simd-json and serde_json authors benchmark them; and the user's own".into(),
            kind: StudyKind::Measured,
            question: Some(Question {
                frames: FramePattern::builtin(SCAN_FRAMES),
                label: "scan share",
                caption: "Share of CPU samples in string and number scanning",
            }),
            baseline: None,
            steps: Vec::new(),
            hidden: false,
            // 21 configurations per standard document, 63 for the three: at the run's full
            // settings (12 processes, 1,000 samples, 24 overhead pairs) they would take ~15
            // minutes, against a budget of 10 (and 3 for --quick). Measured on an idle machine
            // with 5 processes and 500 samples (--quick: 2 and 150) and the run's overhead
            // pairs, the three documents took 9 min 35 s (--quick 3 min 25 s): the CPU
            // recording's pairs of 100 ms batches were 4.8 s (1.6 s) of a configuration's ~9 s
            // (~3.3 s). 12 pairs keep a 96% interval on the overhead ([3rd, 10th] of 12), 6 a
            // 97% one ([min, max]); at the ~190 Hz measured, 6 pairs' sampled halves give ~115
            // samples, so a --quick recording is its pairs and nothing more.
            budget: Some(Budget {
                processes: 5,
                quick_processes: 2,
                cpu_samples: 500,
                quick_cpu_samples: 110,
                overhead_pairs: 12,
                quick_overhead_pairs: 6,
            }),
        },
        configs: docs.iter().flat_map(configs).collect(),
    }
}

/// Which engine, on which value, in a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
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
                external::serde_json::VERSION,
                "serde_json|serde(_core)?::",
            ),
            TypedSonic | DomSonic => ("sonic-rs", external::sonic_rs::VERSION, "sonic_rs"),
            TypedSimd | DomSimdOwned | DomSimdBorrowed => (
                "simd-json",
                external::simd_json::VERSION,
                "simd_json|value_trait|halfbrown",
            ),
            MsgpackRmp => (
                "rmp-serde",
                external::rmp_serde::VERSION,
                "rmp_serde|rmp::|serde(_core)?::|serde_json::value",
            ),
            CborCiborium => (
                "ciborium",
                external::ciborium::VERSION,
                "ciborium|serde(_core)?::|serde_json::value",
            ),
        }
    }

    fn typed(self) -> bool {
        matches!(
            self,
            Variant::TypedSerdeJson
                | Variant::TypedSerdeJsonStr
                | Variant::TypedSonic
                | Variant::TypedSimd
        )
    }

    fn notes(self, doc: &DocumentRecord) -> String {
        let model = doc
            .standard()
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
fn plan(doc: &DocumentRecord) -> Vec<(Operation, Variant)> {
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
    if doc.standard().is_none() {
        all.retain(|(_, v)| !v.typed());
    }
    all
}

fn configs(doc: &DocumentRecord) -> Vec<Config> {
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
                format,
                dataset: DatasetKind::Document,
                operation,
                engine_frames: FramePattern::builtin(frames),
                notes: variant.notes(&doc),
                document: Some((*doc).clone()),
            };
            let doc = Arc::clone(&doc);
            Config::new(info, move || Ok(AnyCodec::Document(make(&doc, variant)?)))
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
/// parent checked that text is JSON when `--corpus` gave it), and has the engine prepare its
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
        doc.standard().ok_or_else(|| {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str) -> DocumentRecord {
        DocumentRecord {
            name: clean(&Path::new(path).file_stem().unwrap().to_string_lossy()),
            path: path.into(),
            bytes: 1,
            sha256: String::new(),
        }
    }

    #[test]
    fn names_keep_same_named_files_apart() {
        let files: Vec<PathBuf> = [
            "/a/data.json",
            "/b/data.json",
            "/a/other.json",
            "/c/d e.json",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(names(&files), ["a_data", "b_data", "other", "d_e"]);
        let same: Vec<PathBuf> = ["/x/a/d.json", "/y/a/d.json"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(names(&same), ["a_d", "a_d-2"]);
    }

    #[test]
    fn typed_configurations_only_for_standard_documents() {
        let own = plan(&record("/tmp/mine.json"));
        assert!(own.iter().all(|(_, v)| !v.typed()));
        assert!(own.iter().any(|(op, _)| *op == Operation::RoundTrip));
        let standard = plan(&record("/tmp/canada.json"));
        assert!(standard.iter().filter(|(_, v)| v.typed()).count() >= 7);
        let s = study(&[record("/tmp/canada.json"), record("/tmp/mine.json")]);
        let mut names: Vec<String> = s.configs.iter().map(|c| c.info.config.clone()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
