//! The allocator a measured child allocates with (`run --allocators`): [`ChosenAlloc`], which
//! `serprof::main!` puts inside the counting allocator ([`crate::CountingAlloc`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

use crate::model::allocator::Allocator;

/// The allocator a process allocates with, chosen once: the first allocation reads
/// `SERPROF_ALLOCATOR` (with `getenv`, which does not allocate) and every later
/// call of every thread uses the same allocator, so a child never mixes two. A name this build
/// lacks (a feature off) or does not know falls back to the system allocator, and the worker
/// refuses the configuration when the allocator it was asked for is not the one it has
/// (`chosen`). `serprof::main!` installs it (inside [`crate::CountingAlloc`]) unless the crate names
/// an allocator of its own.
pub struct ChosenAlloc;

/// 0: not chosen yet; otherwise 1 + the index of the allocator in `Allocator::ALL`.
static CHOICE: AtomicU8 = AtomicU8::new(0);

#[cfg(feature = "jemalloc")]
static JEMALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
#[cfg(feature = "mimalloc")]
static MIMALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The allocator named by `name` (the variable's value; `None`: unset) in this build.
fn choose(name: Option<&[u8]>) -> Allocator {
    name.and_then(|n| std::str::from_utf8(n).ok())
        .and_then(Allocator::parse)
        .filter(|a| a.compiled())
        .unwrap_or(Allocator::System)
}

impl ChosenAlloc {
    #[inline]
    fn allocator(&self) -> Allocator {
        match CHOICE.load(Ordering::Relaxed) {
            0 => self.decide(),
            n => Allocator::ALL[usize::from(n - 1)],
        }
    }

    #[cold]
    fn decide(&self) -> Allocator {
        // SAFETY: `getenv` reads the environment without allocating; the name is a C string.
        let name = unsafe {
            let p = libc::getenv(crate::model::allocator::ENV_C.as_ptr());
            (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_bytes())
        };
        let a = choose(name);
        let code = 1 + Allocator::ALL.iter().position(|&x| x == a).unwrap_or(0) as u8;
        match CHOICE.compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => a,
            Err(n) => Allocator::ALL[usize::from(n - 1)],
        }
    }
}

/// Calls `$call` with `$a` bound to the chosen allocator, dispatched statically.
macro_rules! dispatch {
    ($self:ident, $a:ident => $call:expr) => {
        match $self.allocator() {
            #[cfg(feature = "jemalloc")]
            Allocator::Jemalloc => {
                let $a = &JEMALLOC;
                $call
            }
            #[cfg(feature = "mimalloc")]
            Allocator::Mimalloc => {
                let $a = &MIMALLOC;
                $call
            }
            _ => {
                let $a = &System;
                $call
            }
        }
    };
}

// SAFETY: every call goes to the one allocator chosen at the first call, which never changes,
// so memory is always freed or resized by the allocator that gave it.
unsafe impl GlobalAlloc for ChosenAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        dispatch!(self, a => a.alloc(layout))
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        dispatch!(self, a => a.alloc_zeroed(layout))
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        dispatch!(self, a => a.dealloc(ptr, layout))
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        dispatch!(self, a => a.realloc(ptr, layout, new_size))
    }
}

/// The allocator this process allocates with when its global allocator is [`ChosenAlloc`];
/// `None` when it is another (a crate's own, or the tests' counting system allocator).
pub(crate) fn chosen() -> Option<Allocator> {
    let _probe = std::hint::black_box(Box::new(0u8));
    match CHOICE.load(Ordering::Relaxed) {
        0 => None,
        n => Some(Allocator::ALL[usize::from(n - 1)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allocator_is_chosen_by_name_and_only_when_compiled_in() {
        assert_eq!(choose(None), Allocator::System);
        assert_eq!(choose(Some(b"system")), Allocator::System);
        assert_eq!(choose(Some(b"tcmalloc")), Allocator::System);
        assert_eq!(choose(Some(b"\xff")), Allocator::System);
        for a in [Allocator::Jemalloc, Allocator::Mimalloc] {
            let expected = if a.compiled() { a } else { Allocator::System };
            assert_eq!(choose(Some(a.name().as_bytes())), expected);
        }
    }

    #[test]
    fn the_tests_allocator_is_not_the_chosen_one() {
        // The test binary's global allocator counts the system allocator directly.
        assert_eq!(chosen(), None);
    }
}
