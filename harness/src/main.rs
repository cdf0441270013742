//! The `serprof` binary: serprof's own studies, measured by the same `main!` a user's crate
//! calls (the counting allocator wrapping the system allocator, the command line, the hidden
//! workers).

serprof::main!(serprof::builtin_studies);
