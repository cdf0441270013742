//! `dataset::rsb::log`.

#[test]
fn zones_run_from_minus_to_plus_twelve_hours() {
    assert_eq!(serprof_engines::dataset::rsb::log::zone(0), "-1200");
    assert_eq!(serprof_engines::dataset::rsb::log::zone(11), "-0100");
    assert_eq!(serprof_engines::dataset::rsb::log::zone(12), "+0000");
    assert_eq!(serprof_engines::dataset::rsb::log::zone(24), "+1200");
}
