//! Helpers shared by the integration tests.

use std::process::Command as StdCommand;

/// Whether valgrind is installed. Without it a test says so and passes, except in CI
/// (`CI=true`), where a missing valgrind fails it.
pub fn have_valgrind() -> bool {
    let ok = StdCommand::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "valgrind is missing in CI: scripts/test installs it"
        );
        eprintln!("skipped: valgrind is not installed (scripts/test installs it)");
    }
    ok
}
