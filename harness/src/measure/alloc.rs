//! The allocation recording: a counting `#[global_allocator]` wrapping the system allocator.
//!
//! Counting is gated per thread ([`start`] / [`stop`]), so only the measured loop of the `alloc`
//! child is counted (never pprof's own allocations, never the harness's bookkeeping), and test
//! threads running in parallel do not pollute each other. The hook itself never allocates and
//! takes no lock: counters are thread-local `Cell`s, and sampled stacks go to a fixed static
//! buffer claimed with an atomic index.
//!
//! Sampling: every `sample_bytes` allocated bytes, the allocating call's stack is recorded by
//! walking the frame-pointer chain (the workspace builds with `-C force-frame-pointers=yes`),
//! weighted by the bytes allocated since the previous sample. Symbolisation happens after
//! counting stops.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, UnsafeCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::cpu::library_of;
use crate::profile::folded::Folded;
use crate::profile::sources::Sources;

/// The counting allocator: wraps a global allocator (the system's by default) and counts the
/// allocations of the threads that asked for it (`start`). `serprof::main!` installs it with
/// `#[global_allocator]`, wrapping the crate's own allocator when it names one:
///
/// ```ignore
/// serprof::main!(studies, allocator: MyAlloc = MyAlloc::new());
/// ```
pub struct CountingAlloc<A = System> {
    inner: A,
}

impl<A> CountingAlloc<A> {
    /// Counts the allocations `inner` serves.
    pub const fn new(inner: A) -> CountingAlloc<A> {
        CountingAlloc { inner }
    }
}

impl CountingAlloc<System> {
    /// Counts the system allocator's allocations.
    pub const fn system() -> CountingAlloc<System> {
        CountingAlloc { inner: System }
    }
}

struct ThreadCounters {
    on: Cell<bool>,
    allocs: Cell<u64>,
    reallocs: Cell<u64>,
    bytes: Cell<u64>,
    live: Cell<i64>,
    peak: Cell<i64>,
    sample_every: Cell<u64>,
    since_sample: Cell<u64>,
    stack_lo: Cell<usize>,
    stack_hi: Cell<usize>,
}

thread_local! {
    // Const-initialised and without destructors: reading it inside the allocator never
    // allocates and never registers anything.
    static COUNTERS: ThreadCounters = const {
        ThreadCounters {
            on: Cell::new(false),
            allocs: Cell::new(0),
            reallocs: Cell::new(0),
            bytes: Cell::new(0),
            live: Cell::new(0),
            peak: Cell::new(0),
            sample_every: Cell::new(0),
            since_sample: Cell::new(0),
            stack_lo: Cell::new(0),
            stack_hi: Cell::new(0),
        }
    };
}

const MAX_FRAMES: usize = 64;
const MAX_STACKS: usize = 16 * 1024;

struct StackStore {
    frames: UnsafeCell<[[usize; MAX_FRAMES]; MAX_STACKS]>,
    depth: UnsafeCell<[u8; MAX_STACKS]>,
    weight: UnsafeCell<[u64; MAX_STACKS]>,
    next: AtomicUsize,
}

// SAFETY: each slot is written by exactly one thread (the one that claimed its index with
// `fetch_add`) and read only by `take_stacks` after every writer has stopped counting.
unsafe impl Sync for StackStore {}

static STACKS: StackStore = StackStore {
    frames: UnsafeCell::new([[0; MAX_FRAMES]; MAX_STACKS]),
    depth: UnsafeCell::new([0; MAX_STACKS]),
    weight: UnsafeCell::new([0; MAX_STACKS]),
    next: AtomicUsize::new(0),
};

/// Counts of one counted section of one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Counts {
    pub allocs: u64,
    pub reallocs: u64,
    /// Bytes requested by allocations, plus the new size of every reallocation.
    pub bytes: u64,
    /// Highest live bytes above the level at [`start`].
    pub peak_live_bytes: u64,
}

/// Starts counting this thread's allocations (and sampling a stack every `sample_bytes`
/// allocated bytes; 0 turns sampling off). Counters start from zero.
pub(crate) fn start(sample_bytes: u64) {
    let (lo, hi) = current_stack_bounds();
    COUNTERS.with(|c| {
        c.allocs.set(0);
        c.reallocs.set(0);
        c.bytes.set(0);
        c.live.set(0);
        c.peak.set(0);
        c.sample_every.set(sample_bytes);
        c.since_sample.set(0);
        c.stack_lo.set(lo);
        c.stack_hi.set(hi);
        c.on.set(true);
    });
}

/// Whether the counting allocator is this process's global allocator: one allocation made while
/// counting is counted.
pub(crate) fn installed() -> bool {
    start(0);
    let probe = std::hint::black_box(Box::new(0u8));
    let counts = stop();
    drop(probe);
    counts.allocs > 0
}

/// The heap bytes this thread has allocated and not freed since [`start`] (reallocations
/// counted by their change): what a value made in between holds, when read before and after.
pub(crate) fn live_bytes() -> i64 {
    COUNTERS.with(|c| c.live.get())
}

/// Stops counting this thread's allocations and returns the counts since [`start`].
pub(crate) fn stop() -> Counts {
    COUNTERS.with(|c| {
        c.on.set(false);
        Counts {
            allocs: c.allocs.get(),
            reallocs: c.reallocs.get(),
            bytes: c.bytes.get(),
            peak_live_bytes: c.peak.get().max(0) as u64,
        }
    })
}

#[inline]
fn on_alloc(size: usize) {
    let _ = COUNTERS.try_with(|c| {
        if !c.on.get() {
            return;
        }
        c.allocs.set(c.allocs.get() + 1);
        account(c, size as u64, size as i64);
    });
}

#[inline]
fn account(c: &ThreadCounters, bytes: u64, live_delta: i64) {
    c.bytes.set(c.bytes.get() + bytes);
    let live = c.live.get() + live_delta;
    c.live.set(live);
    if live > c.peak.get() {
        c.peak.set(live);
    }
    let every = c.sample_every.get();
    if every > 0 {
        let since = c.since_sample.get() + bytes;
        if since >= every {
            c.since_sample.set(0);
            record_stack(c, since);
        } else {
            c.since_sample.set(since);
        }
    }
}

#[inline(never)]
fn record_stack(c: &ThreadCounters, weight: u64) {
    let slot = STACKS.next.fetch_add(1, Ordering::Relaxed);
    if slot >= MAX_STACKS {
        return;
    }
    // SAFETY: `slot` was claimed by this thread alone (see `StackStore`).
    unsafe {
        let frames = &mut (*STACKS.frames.get())[slot];
        let depth = walk_frame_pointers(frames, c.stack_lo.get(), c.stack_hi.get());
        (*STACKS.depth.get())[slot] = depth as u8;
        (*STACKS.weight.get())[slot] = weight;
    }
}

/// Walks the frame-pointer chain from the caller's frame, writing return addresses into `out`.
/// Stops at a null, misaligned or non-increasing frame pointer, or one outside `[lo, hi)`.
#[inline(always)]
fn walk_frame_pointers(out: &mut [usize; MAX_FRAMES], lo: usize, hi: usize) -> usize {
    let mut fp: usize;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: reads the frame-pointer register only.
    unsafe {
        std::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags));
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: reads the frame-pointer register only.
    unsafe {
        std::arch::asm!("mov {}, x29", out(reg) fp, options(nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        fp = 0;
    }
    let mut n = 0;
    while n < MAX_FRAMES && fp != 0 && fp.is_multiple_of(8) && fp >= lo && fp + 16 <= hi {
        // SAFETY: `fp` lies inside this thread's stack (checked above), and with frame pointers
        // each frame starts with [saved fp, return address].
        let (next, ret) = unsafe { (*(fp as *const usize), *((fp + 8) as *const usize)) };
        if ret == 0 {
            break;
        }
        out[n] = ret;
        n += 1;
        if next <= fp {
            break;
        }
        fp = next;
    }
    n
}

/// The bounds of the current thread's stack (`pthread_getattr_np`), or `(0, 0)` (no stacks)
/// when they cannot be read.
fn current_stack_bounds() -> (usize, usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: standard use of pthread_getattr_np / pthread_attr_getstack on the current thread;
    // the attr is destroyed after use.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return (0, 0);
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if ok {
            return (addr as usize, addr as usize + size);
        }
    }
    (0, 0)
}

/// Frames that belong to the allocator itself: the hook, its inlined thread-local access, and
/// the `__rust_alloc` shims (named `__rustc::__rust_alloc` by current toolchains). Everything
/// up to the last of them (from the leaf) is dropped, so a stack ends at the code that asked
/// for memory (`RawVec::grow`, `String::from`, ...).
fn is_allocator_frame(name: &str) -> bool {
    let name = name.strip_prefix("__rustc::").unwrap_or(name);
    name.contains("CountingAlloc")
        || ["on_alloc", "account", "record_stack", "walk_frame_pointers"]
            .iter()
            .any(|f| name.starts_with(&format!("serprof::measure::alloc::{f}")))
        || name.starts_with("__rust_")
        || name.starts_with("__rg_")
        || name.starts_with("__rdl_")
}

/// How many frames (from the leaf) belong to the allocator; looked for among the first few only,
/// so a frame deep in the engine is never mistaken for one.
fn allocator_frames(names: &[String]) -> usize {
    names
        .iter()
        .take(24)
        .rposition(|n| is_allocator_frame(n))
        .map_or(0, |i| i + 1)
}

/// Takes the stacks sampled since the last call, symbolised and folded under `root`, and how
/// many samples there were (samples past the buffer's capacity are counted, not kept).
pub(crate) fn take_stacks(root: &str) -> (Folded, u64) {
    let (folded, n, _) = take_stacks_with_sources(root);
    (folded, n)
}

/// [`take_stacks`], and where each frame's function is (its source file as the debug info
/// resolves it, inlined frames included, and the library of its address).
pub(crate) fn take_stacks_with_sources(root: &str) -> (Folded, u64, Sources) {
    let n = STACKS.next.swap(0, Ordering::Relaxed);
    let kept = n.min(MAX_STACKS);
    let mut sources = Sources::default();
    let mut cache: HashMap<usize, Vec<String>> = HashMap::new();
    let mut folded = Folded::default();
    for slot in 0..kept {
        // SAFETY: counting has stopped on every thread that wrote these slots.
        let (frames, depth, weight) = unsafe {
            (
                (*STACKS.frames.get())[slot],
                (*STACKS.depth.get())[slot] as usize,
                (*STACKS.weight.get())[slot],
            )
        };
        let mut names: Vec<String> = Vec::new(); // leaf first
        for &ip in &frames[..depth] {
            let syms = cache.entry(ip).or_insert_with(|| {
                let mut v = Vec::new();
                let addr = (ip - 1) as *mut std::ffi::c_void;
                let library = library_of(addr);
                // A return address points after the call: resolve the call instruction.
                backtrace::resolve(addr, |s| {
                    let name = s
                        .name()
                        .map(|n| format!("{n:#}"))
                        .unwrap_or_else(|| format!("{ip:#x}"));
                    let file = s.filename().map(|f| f.to_string_lossy());
                    sources.note(&name, file.as_deref(), library.as_deref());
                    v.push(name);
                });
                if v.is_empty() {
                    v.push(format!("{ip:#x}"));
                }
                v
            });
            names.extend(syms.iter().cloned());
        }
        let first_real = allocator_frames(&names);
        let mut stack: Vec<String> = names[first_real..].to_vec();
        stack.reverse();
        if stack.is_empty() {
            stack.push("[unknown]".into());
        }
        folded.add(root, &stack, weight);
    }
    (folded, n as u64, sources)
}

// SAFETY: every method forwards to the inner allocator with the same arguments; the counting
// around it touches only thread-local cells and the static stack buffer, and never allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.inner.alloc(layout);
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = self.inner.alloc_zeroed(layout);
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.inner.dealloc(ptr, layout);
        let _ = COUNTERS.try_with(|c| {
            if c.on.get() {
                c.live.set(c.live.get() - layout.size() as i64);
            }
        });
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = self.inner.realloc(ptr, layout, new_size);
        if !p.is_null() {
            let _ = COUNTERS.try_with(|c| {
                if c.on.get() {
                    c.reallocs.set(c.reallocs.get() + 1);
                    account(c, new_size as u64, new_size as i64 - layout.size() as i64);
                }
            });
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    #[test]
    fn counts_a_known_pattern_exactly() {
        start(0);
        for _ in 0..3 {
            black_box(vec![0u8; 1000]);
        }
        let c = stop();
        assert_eq!((c.allocs, c.reallocs, c.bytes), (3, 0, 3000));
        assert_eq!(c.peak_live_bytes, 1000);
    }

    #[test]
    fn counts_nothing_when_nothing_allocates_or_when_off() {
        let mut buf = Vec::with_capacity(64);
        start(0);
        buf.extend_from_slice(b"no allocation");
        let c = stop();
        assert_eq!(c, Counts::default());
        black_box(vec![1u8; 10]);
        assert_eq!(stop(), Counts::default(), "nothing is counted while off");
    }

    #[test]
    fn the_shims_are_allocator_frames_under_either_name() {
        for name in [
            "__rust_alloc",
            "__rustc::__rust_alloc",
            "__rustc::__rust_no_alloc_shim_is_unstable_v2",
            "__rustc::__rdl_alloc",
        ] {
            assert!(is_allocator_frame(name), "{name}");
        }
        assert!(!is_allocator_frame("alloc::raw_vec::RawVec<T,A>::grow_one"));
    }

    #[test]
    fn counts_reallocation_with_its_new_size() {
        let mut v: Vec<u8> = Vec::with_capacity(16);
        start(0);
        v.reserve_exact(100);
        let c = stop();
        assert_eq!((c.allocs, c.reallocs, c.bytes), (0, 1, 100));
        black_box(v);
    }

    #[test]
    #[inline(never)]
    fn samples_stacks_with_their_weight() {
        // Other tests may sample concurrently; only this thread's samples are checked by name.
        start(1000);
        for _ in 0..10 {
            black_box(vec![0u8; 1000]);
        }
        stop();
        let (folded, n) = take_stacks("root");
        for stack in folded.stacks.keys() {
            let leaf = stack.rsplit(';').next().unwrap();
            assert!(
                !is_allocator_frame(leaf) && !leaf.contains("LocalKey"),
                "allocator frames are cut: {stack}"
            );
        }
        assert!(n >= 10, "one sample per 1000 bytes: {n}");
        let mine: u64 = folded
            .stacks
            .iter()
            .filter(|(s, _)| s.contains("samples_stacks_with_their_weight"))
            .map(|(_, c)| c)
            .sum();
        assert_eq!(mine, 10_000, "{}", folded.to_text());
    }
}
