//! `external::rsb_pb::mk48`.

use serprof_engines::external::rsb_pb::mk48::*;

#[test]
fn the_numbers_go_both_ways() {
    for (n, e) in (0..).zip(ENTITY_TYPES) {
        assert_eq!(entity_type_number(e), n);
        assert_eq!(entity_type_of_number(n, "t").ok(), Some(e));
    }
    assert!(entity_type_of_number(-1, "t").is_err());
    assert!(entity_type_of_number(10, "t").is_err());
}
