//! `casestudy::reflect_json::cache`.

use serprof_engines::casestudy::reflect_json::cache::*;
use std::any::TypeId;

#[test]
fn introspects_once_per_type() {
    let cache = PropertyCache::<u32>::default();
    let mut calls = 0;
    for _ in 0..3 {
        let list = cache.get_or_compute(TypeId::of::<u8>(), || {
            calls += 1;
            vec![1, 2]
        });
        assert_eq!(*list, [1, 2]);
    }
    cache.get_or_compute(TypeId::of::<u16>(), || vec![3]);
    assert_eq!(calls, 1);
    assert_eq!(cache.introspections(), 2);
}

#[test]
fn is_shared_between_threads() {
    let cache = PropertyCache::<u32>::default();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| cache.get_or_compute(TypeId::of::<u8>(), || vec![1]));
        }
    });
    assert_eq!(cache.introspections(), 1);
}
