//! `studies::corpus`.

use serprof_engines::studies::corpus::*;
use std::path::PathBuf;

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
