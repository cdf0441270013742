//! serprof: placeholder while the harness is built.
