//! The `corpus` study: every JSON engine on real documents, the three standard documents of
//! nativejson-benchmark (`twitter.json`, `citm_catalog.json`, `canada.json`) and the user's
//! own, parsed, serialised and round-tripped, typed and as a DOM, and the DOM transcoded to
//! MessagePack and CBOR.
//!
//! The documents are files named at run time by the environment ([`DOCUMENTS_VAR`]); the
//! repository holds none. The study is built from them like any study built from data
//! ([`from_env`]): they are checked ([`load`]: JSON, size, SHA-256) and described
//! ([`DocumentRecord`], in each configuration's description, so the fingerprint of the study
//! list that the parent checks in every worker child covers their hashes). Each configuration's
//! constructor reads its file again, checks its hash, parses it with our reference parser
//! ([`mod@reference`]) and has the engine parse it: verification compares the two.

#[cfg(feature = "corpus")]
#[doc(hidden)]
pub mod configs;
#[cfg(feature = "corpus")]
pub mod engines;
pub mod reference;
pub mod typed;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use super::DocumentRecord;
use super::{Budget, Study};
pub use serprof_api::__private::DocumentCodec;
use typed::Standard;

/// The study's name.
const NAME: &str = "corpus";

/// The default of `SERPROF_CORPUS_MAX_MIB`: a document's DOM takes several times its size in memory
/// and every configuration holds one beside its reference; 64 MiB stays well inside a worker's
/// 4 GiB address-space cap.
pub const DEFAULT_MAX_MIB: u64 = 64;

/// The standard document `doc` is, by its file name.
pub fn standard_of(doc: &DocumentRecord) -> Option<Standard> {
    Standard::of_file_name(&doc.path.file_name()?.to_string_lossy())
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

/// The files the paths name: a file as it is, a folder's `.json` files in name order.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CorpusError> {
    let mut files = Vec::new();
    for p in paths {
        let meta =
            std::fs::metadata(p).map_err(|e| CorpusError(format!("{}: {e}", p.display())))?;
        if meta.is_dir() {
            let entries =
                std::fs::read_dir(p).map_err(|e| CorpusError(format!("{}: {e}", p.display())))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "json"))
                .collect();
            if found.is_empty() {
                return Err(CorpusError(format!(
                    "{}: the folder has no .json file",
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
            .map_err(|e| CorpusError(format!("{}: {e}", f.display())))?;
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
            "{}: {:.1} MiB is over the limit of {} MiB (SERPROF_CORPUS_MAX_MIB)",
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
pub fn names(files: &[PathBuf]) -> Vec<String> {
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

/// Checks the documents `paths` name and describes them.
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

/// The environment variable naming the study's documents: paths, `:`-separated, each a
/// `.json` file or a folder of them.
pub const DOCUMENTS_VAR: &str = "SERPROF_CORPUS";

/// The environment variable of the size limit per document, in MiB ([`DEFAULT_MAX_MIB`]).
pub const MAX_MIB_VAR: &str = "SERPROF_CORPUS_MAX_MIB";

/// The corpus study of the documents [`DOCUMENTS_VAR`] names, as every process of a run
/// builds it (worker children inherit the environment; the parent checks that they built the
/// same list). Without documents, or with documents that cannot be used, the study is
/// unavailable and says why.
pub fn from_env() -> Study {
    let unavailable = |reason: String| study(&[]).unavailable(reason);
    let Some(paths) = std::env::var_os(DOCUMENTS_VAR).filter(|v| !v.is_empty()) else {
        return unavailable(format!(
            "the {NAME} study needs documents: set {DOCUMENTS_VAR}=PATH (a .json file or a folder of them; several joined by ':')"
        ));
    };
    let max_mib = match std::env::var(MAX_MIB_VAR) {
        Err(_) => DEFAULT_MAX_MIB,
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return unavailable(format!(
                    "{MAX_MIB_VAR}={text:?}: give a whole number of MiB, at least 1"
                ))
            }
        },
    };
    let paths: Vec<PathBuf> = std::env::split_paths(&paths).collect();
    match load(&paths, max_mib) {
        Ok(docs) => study(&docs),
        Err(CorpusError(e)) => unavailable(format!("{DOCUMENTS_VAR}: {e}")),
    }
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
    let study = Study::new(NAME, "Which JSON engine is fastest on these documents, and why")
        .source("the three documents of Milo Yip's nativejson-benchmark (twitter, citm_catalog, canada), as the sonic-rs, simd-json and serde_json authors benchmark them; and the user's own")
        .question(SCAN_FRAMES, "string and number scanning")
        // 21 configurations per standard document, 63 for the three: at the run's full
        // settings (12 processes, 1,000 samples, 24 overhead pairs) they take ~15 minutes.
        // With 5 processes and 500 samples (--quick: 2 and 110) the CPU recording's
        // sampled/unsampled pairs are most of a configuration's time: 12 pairs keep a 96%
        // interval on the overhead ([3rd, 10th] of 12), 6 a 97% one ([min, max]); at ~190 Hz,
        // 6 pairs' sampled halves give ~115 samples, so a --quick recording is its pairs.
        .budget(Budget {
            processes: 5,
            quick_processes: 2,
            cpu_samples: 500,
            quick_cpu_samples: 110,
            overhead_pairs: 12,
            quick_overhead_pairs: 6,
        });
    #[cfg(feature = "corpus")]
    let study = docs
        .iter()
        .flat_map(configs::configs)
        .fold(study, Study::config);
    #[cfg(not(feature = "corpus"))]
    let _ = docs;
    study
}
