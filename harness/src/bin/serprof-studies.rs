//! serprof's studies as a measured program, without the driver: what `before-after` and `run
//! --layouts` build for each side of serprof's own source, the running serprof driving its
//! children. Run by hand, it hands its command line to the installed `serprof`, as a crate of
//! one's own does. It needs the `studies-bin` feature (off by default).

serprof::main!(serprof::builtin_studies);
