//! The `corrupt` study's guarded decoding: placeholder until it lands (issue 9).

use std::path::Path;

use anyhow::Result;

use crate::settings::Settings;

/// Decodes the corrupt inputs of `config` from index `start` on, in this (guarded) child.
pub fn worker(config: &str, dir: &Path, _settings: &Settings, start: usize) -> Result<()> {
    anyhow::bail!(
        "the corrupt study is not built yet ({config} in {}, from {start})",
        dir.display()
    )
}

/// Measures one configuration of the `corrupt` study (operation `decode`): the table of outcomes
/// per engine. Called by the runner instead of the timing/cpu/alloc recordings.
pub fn measure_config(
    config: &serprof_engines::studies::Config,
    _dir: &Path,
    _settings: &Settings,
    _progress: &crate::progress::Progress,
) -> crate::result::ConfigResult {
    let mut r = crate::result::ConfigResult::new(&config.info);
    r.error = Some("the corrupt study is not built yet".into());
    r
}
