//! The per-type property cache: the article's `ConcurrentHashMap<Class<?>, List<Property>>` with
//! `computeIfAbsent`, keyed by `TypeId`.
//!
//! A `RwLock<HashMap>` is std's nearest concurrent map: a lookup takes the read lock, hashes the
//! key and clones an `Arc` (Java hands out a plain reference and lets the collector count; Rust
//! must count the list's users itself). That per-object lookup is what `reflect-tuned-resolved`
//! removes. Only a miss takes the write lock, and introspects once per type.

use std::any::TypeId;
use std::collections::HashMap;

use crate::model::FixedHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

/// Property lists of type `P` by type, discovered at most once per type.
pub struct PropertyCache<P> {
    lists: RwLock<HashMap<TypeId, Arc<[P]>, FixedHasher>>,
    introspections: AtomicUsize,
}

impl<P> Default for PropertyCache<P> {
    fn default() -> Self {
        PropertyCache {
            lists: RwLock::new(HashMap::default()),
            introspections: AtomicUsize::new(0),
        }
    }
}

impl<P> PropertyCache<P> {
    /// The list for `key`, computed by `compute` (an introspection) the first time only.
    #[inline]
    pub fn get_or_compute(&self, key: TypeId, compute: impl FnOnce() -> Vec<P>) -> Arc<[P]> {
        if let Some(list) = self
            .lists
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Arc::clone(list);
        }
        self.insert_missing(key, compute)
    }

    /// A miss: introspects under the write lock, so two threads cannot both discover one type.
    #[cold]
    #[inline(never)]
    fn insert_missing(&self, key: TypeId, compute: impl FnOnce() -> Vec<P>) -> Arc<[P]> {
        let mut lists = self.lists.write().unwrap_or_else(PoisonError::into_inner);
        let list = lists.entry(key).or_insert_with(|| {
            self.introspections.fetch_add(1, Ordering::Relaxed);
            Arc::from(compute())
        });
        Arc::clone(list)
    }

    /// How many times this cache has introspected: once per type it has seen.
    pub fn introspections(&self) -> usize {
        self.introspections.load(Ordering::Relaxed)
    }
}
