//! `model::digest`.

#[test]
fn orders_that_differ_in_a_field_differ_in_digest() {
    let orders = serprof_engines::dataset::orders();
    let a = orders[0].clone();
    assert_eq!(a.digest(), orders[0].digest());
    let mut b = a.clone();
    b.created += 1;
    assert_ne!(a.digest(), b.digest());
    let mut c = a.clone();
    c.notes = Some(c.notes.unwrap_or_default() + "x");
    assert_ne!(a.digest(), c.digest());
    assert_ne!(orders[0].digest(), orders[1].digest());
}
