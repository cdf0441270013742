//! `casestudy::export`.

use serprof_engines::casestudy::export::*;
use serprof_engines::dataset::ORDER_COUNT;

#[test]
fn one_order_is_one_line_and_out_of_range_is_a_misuse() {
    let mut out = Vec::new();
    let req = Export {
        order: Some(3),
        stats: false,
        json: false,
    };
    write(&req, &mut out).unwrap();
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
    let wrong = Export {
        order: Some(ORDER_COUNT),
        ..req
    };
    assert!(matches!(
        write(&wrong, &mut Vec::new()),
        Err(ExportError::Misuse(_))
    ));
    assert_eq!(thousands(1234567.0, 0), "1,234,567");
    assert_eq!(thousands(-1234.5, 1), "-1,234.5");
}
