//! The `serprof` binary: installs the counting allocator (switched on only around the measured
//! loop of an `alloc` child) and hands over to [`serprof::cli::main`].

#[global_allocator]
static ALLOCATOR: serprof::measure::alloc::CountingAlloc = serprof::measure::alloc::CountingAlloc;

fn main() -> std::process::ExitCode {
    // Like other Unix tools, end quietly when stdout is closed early (`serprof list | head`)
    // instead of panicking on EPIPE.
    // SAFETY: setting a signal disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    serprof::cli::main()
}
