//! `dataset::java_random`.

use serprof_engines::dataset::java_random::*;

#[test]
fn matches_java_for_seed_42() {
    // Values printed by OpenJDK 17: new Random(42).nextInt() x3, then nextInt(10) x3.
    let mut r = JavaRandom::new(42);
    assert_eq!(
        [r.next_int(), r.next_int(), r.next_int()],
        [-1170105035, 234785527, -1360544799]
    );
    let mut r = JavaRandom::new(42);
    assert_eq!(
        [
            r.next_int_bounded(10),
            r.next_int_bounded(10),
            r.next_int_bounded(10)
        ],
        [0, 3, 8]
    );
}

#[test]
fn power_of_two_bound_uses_the_high_bits() {
    let mut a = JavaRandom::new(7);
    let mut b = JavaRandom::new(7);
    let v = a.next_int_bounded(16);
    assert_eq!(v, ((16i64 * i64::from(b.next(31))) >> 31) as i32);
}

#[test]
fn next_bytes_takes_low_byte_first() {
    let mut a = JavaRandom::new(42);
    let mut b = JavaRandom::new(42);
    let mut buf = [0u8; 6];
    a.next_bytes(&mut buf);
    let first = b.next_int().to_le_bytes();
    let second = b.next_int().to_le_bytes();
    assert_eq!(&buf[..4], &first);
    assert_eq!(&buf[4..], &second[..2]);
}
