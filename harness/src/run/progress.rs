//! Progress on stderr: an indicatif bar on a terminal; one plain line per finished
//! configuration otherwise (so logs stay readable); nothing with `--quiet`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::ConfigResult;
use crate::render::table::format_ns;

/// Progress of a run.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
    total: u64,
    done: AtomicU64,
}

impl Progress {
    /// `bars`: draw a bar (stderr is a terminal and not quiet); `quiet`: print nothing.
    pub(crate) fn new(total: u64, bars: bool, quiet: bool) -> Progress {
        let bar = bars.then(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        Progress {
            bar,
            plain: !bars && !quiet,
            total,
            done: AtomicU64::new(0),
        }
    }

    /// A recording of `config` starts.
    pub(crate) fn recording(&self, config: &str, what: &str) {
        if let Some(b) = &self.bar {
            b.set_message(format!("{config}: {what}"));
        }
    }

    /// A configuration already finished (resumed run).
    pub(crate) fn skip(&self, config: &str) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(b) = &self.bar {
            b.inc(1);
        } else if self.plain {
            eprintln!("[{done}/{}] {config}: already measured", self.total);
        }
    }

    /// A configuration finished.
    pub(crate) fn finish_config(&self, r: &ConfigResult) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let line = match (&r.error, &r.time_ns) {
            (Some(e), _) => format!("{}: FAILED: {e}", r.name()),
            (None, Some(t)) => format!("{}: {}/op", r.name(), format_ns(t.median)),
            (None, None) => match &r.corrupt {
                Some(c) => format!(
                    "{}: {} inputs: {} clean errors, {} altered, {} panics, {} aborts, {} hangs, {} out of memory",
                    r.name(),
                    c.inputs,
                    c.counts.clean_error,
                    c.counts.altered,
                    c.counts.panic,
                    c.counts.abort,
                    c.counts.hang,
                    c.counts.oom
                ),
                None => format!("{}: done", r.name()),
            },
        };
        if let Some(b) = &self.bar {
            b.inc(1);
            b.println(line);
        } else if self.plain {
            eprintln!("[{done}/{}] {line}", self.total);
        }
    }

    /// The run ended.
    pub(crate) fn done(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
