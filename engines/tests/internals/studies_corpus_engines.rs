//! `studies::corpus::engines`.

use serprof_api::__private::{DuplicateKeys, Finding, Stage, VerifyError};
use serprof_engines::studies::corpus::engines::*;

const DOC: &[u8] = br#"{"a":[1,-2,3.25,1e300],"s":"x\"\u00e9","o":{"n":null,"t":true}}"#;

fn check<E: Engine + Default>(engine: E) -> Vec<Finding> {
    let dup = E::JSON.then(|| duplicate_keys(E::default()));
    let mut p = Prepared::new(engine, DOC, dup).unwrap();
    let mut out = Vec::new();
    p.serialize(&mut out).unwrap();
    p.parse(&mut p.payload().to_vec()).unwrap();
    p.verify().unwrap()
}

#[test]
fn every_dom_verifies_on_a_small_document() {
    for findings in [
        check(SerdeJsonDom),
        check(SonicDom),
        check(SimdOwned::default()),
        check(BorrowedOwnedCopy::default()),
    ] {
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(
            matches!(findings[0], Finding::DuplicateKeys { .. }),
            "{findings:?}"
        );
    }
    assert!(check(RmpDom).is_empty());
    assert!(check(CborDom).is_empty());
}

#[test]
fn typed_engines_reject_or_keep_duplicates() {
    let dup = duplicate_keys(SerdeJsonSlice::<Probe>::default());
    let mut p =
        Prepared::new(SerdeJsonSlice::<Probe>::default(), br#"{"k":7}"#, Some(dup)).unwrap();
    let f = p.verify().unwrap();
    assert!(
        matches!(
            &f[0],
            Finding::DuplicateKeys {
                behaviour: DuplicateKeys::Rejects { .. },
                ..
            }
        ),
        "{f:?}"
    );
}

#[test]
fn a_wrong_shape_fails_verification() {
    // A typed model that drops a field gives a value that differs from the reference.
    let doc = br#"{"k":7,"extra":1}"#;
    let mut p = Prepared::new(SerdeJsonSlice::<Probe>::default(), doc, None).unwrap();
    match p.verify().unwrap_err() {
        VerifyError::DocumentDiffers { stage, at } => {
            assert_eq!(stage, Stage::Parse);
            assert_eq!(at.what, "2 keys, the engine has 1");
        }
        other => panic!("{other:?}"),
    }
}
