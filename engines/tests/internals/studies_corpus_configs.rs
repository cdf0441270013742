//! `studies::corpus::configs`.

use serprof_api::Operation;
use serprof_engines::studies::corpus::configs::*;
use serprof_engines::studies::corpus::DocumentRecord;

fn record(path: &str) -> DocumentRecord {
    DocumentRecord {
        name: std::path::Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        path: path.into(),
        bytes: 1,
        sha256: String::new(),
    }
}

#[test]
fn typed_configurations_only_for_standard_documents() {
    let own = plan(&record("/tmp/mine.json"));
    assert!(own.iter().all(|(_, v)| !v.typed()));
    assert!(own.iter().any(|(op, _)| *op == Operation::RoundTrip));
    let standard = plan(&record("/tmp/canada.json"));
    assert!(standard.iter().filter(|(_, v)| v.typed()).count() >= 7);
    let s = serprof_engines::studies::corpus::study(&[
        record("/tmp/canada.json"),
        record("/tmp/mine.json"),
    ]);
    let mut names: Vec<String> = s.configs().iter().map(|c| c.info.config.clone()).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}
