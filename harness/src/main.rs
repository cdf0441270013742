//! The `serprof` binary: installs the counting allocator (switched on only around the measured
//! loop of an `alloc` child) and hands over to [`serprof::cli::main`].

#[global_allocator]
static ALLOCATOR: serprof::record::alloc::CountingAlloc = serprof::record::alloc::CountingAlloc;

fn main() -> std::process::ExitCode {
    serprof::cli::main()
}
