//! `external::rsb_pb::minecraft`.

use serprof_engines::external::rsb_pb::minecraft::*;

#[test]
fn the_numbers_go_both_ways() {
    for (n, g) in (0..).zip(GAME_TYPES) {
        assert_eq!(game_type_number(g), n);
        assert_eq!(game_type_of_number(n, "t").ok(), Some(g));
    }
    assert!(game_type_of_number(-1, "t").is_err());
    assert!(game_type_of_number(4, "t").is_err());
}
