//! Ctrl-C and SIGTERM during a run: the handler only sets a flag and kills (SIGKILL) the
//! running worker child; the runner stops after the current recording, keeps every finished
//! configuration's files, marks `run.json` incomplete and leaves `latest` alone.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static CHILD: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(_sig: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let pid = CHILD.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// Installs the SIGINT/SIGTERM handler (once, in the parent of a run).
pub(crate) fn install() {
    // SAFETY: the handler only touches atomics and calls kill (async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// Whether the run was asked to stop.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Remembers the running child, so an interrupt stops it too.
pub(crate) fn register_child(pid: u32) {
    CHILD.store(pid as i32, Ordering::SeqCst);
    if interrupted() {
        on_signal(0);
    }
}

/// Forgets the child once it has ended.
pub(crate) fn unregister_child() {
    CHILD.store(0, Ordering::SeqCst);
}
