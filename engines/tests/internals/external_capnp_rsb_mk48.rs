//! `external::capnp_rsb::mk48`.

#[test]
fn each_kind_sits_at_the_index_of_both_its_forms() {
    for (i, (kind, enumerant)) in serprof_engines::external::capnp_rsb::mk48::KINDS
        .into_iter()
        .enumerate()
    {
        assert_eq!((kind as usize, enumerant as usize), (i, i));
    }
}
