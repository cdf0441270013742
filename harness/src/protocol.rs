//! The worker protocol: every request a parent sends to a child of a serprof binary, every reply
//! a child writes back, the protocol's number, and the command line of every kind of child. A
//! parent and a child of different revisions (before/after) work together exactly when their
//! [`PROTOCOL`] numbers are equal; a child given another number refuses with a message naming
//! both.
//!
//! A child is `EXE __worker --protocol N --request JSON`, or, for the instrumented child whose
//! command line must have the same length in every run, `--request-file FILE` with the request
//! in a file padded to [`REQUEST_FILE_BYTES`]. Replies are files the child writes (atomically)
//! into the folder the request names, or, for the corrupt study's decoder, JSON lines appended
//! to its progress file. A lock-step timing child ([`WorkerRequest::Timing`]) instead talks over two
//! pipes it inherits, whose descriptors the request names: one JSON line
//! per [`TimingCommand`] in, one per [`TimingReply`] out, so that the parent decides which
//! configuration runs when, sample by sample. `EXE __protocol` prints the binary's [`Identity`].

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::layout::{self, write_atomic};
use crate::model::corrupt::InputRecord;
use crate::model::ending::Stderr;
use crate::model::{AllocStats, ConfigId, CpuStats, Failure, Recording, Settings};
use serprof_api::__private::FieldBytes;
use serprof_api::__private::Finding;

/// The version of the protocol. Change it whenever a request, a reply or a command line
/// changes. 7: a program describes itself (`__describe`) and serves `encode`, `decode` and
/// `dataset` (`__serve`), and verification children leave the payloads for the driver to
/// compress. 9: a configuration may be named `CONFIG@ALLOCATOR` (`run --allocators`), and a
/// program without the `regex` feature sends its frame patterns as text for the driver to
/// compile. 10: a recorder child ([`WorkerRequest::Recorder`]) serves recording requests one after
/// another over pipes. 11: a timing child records short CPU profiles of its units
/// ([`TimingCommand::Profile`], then [`TimingCommand::Fold`]) for before-after's functions. 12: a profile's command names its sampling rate.
pub(crate) const PROTOCOL: u32 = 12;

/// The hidden subcommand every worker child runs.
pub(crate) const WORKER_COMMAND: &str = "__worker";

/// The hidden subcommand that prints a binary's [`Identity`] (kept from protocol 1 on, so that
/// a parent can ask any serprof binary what it speaks).
pub(crate) const IDENTITY_COMMAND: &str = "__protocol";

/// Bytes every serprof program holds, by which the driver tells a crate's serprof programs from
/// its other binaries without running them (a `static` the program reads at start, so the
/// linker keeps it).
pub(crate) static PROGRAM_MARKER: &[u8] = b"serprof-program-marker\0";

/// The hidden subcommand that prints a program's [`crate::model::described::Description`].
pub(crate) const DESCRIBE_COMMAND: &str = "__describe";

/// The hidden subcommand through which the driver has a described program run one of the
/// commands that need its values in-process ([`Serve`], as JSON).
pub(crate) const SERVE_COMMAND: &str = "__serve";

/// A command a program serves itself, on its own values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub(crate) enum Serve {
    /// `serprof encode CONFIG [--value N]`.
    Encode {
        config: String,
        value: Option<usize>,
    },
    /// `serprof decode CONFIG [FILE] [--json]`.
    Decode {
        config: String,
        file: Option<PathBuf>,
        json: bool,
    },
    /// `serprof dataset [--order N] [--stats] [--json]`.
    Dataset {
        order: Option<usize>,
        stats: bool,
        json: bool,
    },
}

/// Size of a request file: padded with spaces to this, so that reading it allocates the same in
/// every run (the heap's layout, like the stack's, moves instruction counts: malloc's own work
/// and `memcpy`'s alignment paths depend on it).
pub(crate) const REQUEST_FILE_BYTES: usize = 8192;

/// Capacity each name of a request read from a file gets, likewise.
const NAME_CAPACITY: usize = 128;

/// What a parent asks a child to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum WorkerRequest {
    /// One recording of one configuration, into its folder; the reply is a [`WorkerReport`].
    Record(RecordRequest),
    /// The corrupt study's decoder, from input `start` on; the replies are [`CorruptEvent`]
    /// lines in the folder's progress file.
    Corrupt(CorruptRequest),
    /// A lock-step timing child: it builds the workloads of several configurations, then runs
    /// one timed sample of one of them per [`TimingCommand::Sample`], replying over its pipes.
    Timing(TimingRequest),
    /// One process of `serprof doctor`'s between-process probe; the reply, a [`ProbeReply`],
    /// is printed on stdout.
    Probe { batches: usize },
    /// A recorder: it reads one [`RecordRequest`] per JSON line from the first inherited
    /// descriptor, makes that recording exactly as a [`WorkerRequest::Record`] child would (its
    /// report in the request's folder), and writes one [`RecorderReply`] line to the second,
    /// until the parent closes the first. With `fork`, it loads the program's debug information
    /// once and makes each recording in a child it forks, so that every recording starts from
    /// the same process state (the recorder's, which runs no workload); without, it makes them
    /// itself (verification: its figures are exact, whatever the heap has been through).
    Recorder { fds: [i32; 2], fork: bool },
}

/// What a recorder answers when a recording's child has ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub(crate) enum RecorderReply {
    /// The child ended with the wait status `status` (`waitpid`'s), having said `stderr`.
    Ended { status: i32, stderr: Stderr },
}

/// One recording of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordRequest {
    pub config: ConfigId,
    pub recording: Recording,
    /// The configuration's folder: the reply and the profile files go there (`.` for the
    /// instrumented child, which runs in a scratch folder of its own).
    pub dir: PathBuf,
    pub settings: Settings,
}

/// The corrupt study's decoder for one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CorruptRequest {
    pub config: ConfigId,
    pub dir: PathBuf,
    pub settings: Settings,
    /// Index of the first input to decode.
    pub start: usize,
}

/// A lock-step timing child's job: the configurations it holds (its units, by index in this
/// list) and how long a sample lasts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TimingRequest {
    pub configs: Vec<ConfigId>,
    /// Operations per sample of each configuration, as an earlier child of the same binary
    /// calibrated them; `None`: this child calibrates (warming each up for
    /// `settings.calibrate_ms`) and reports them in [`TimingReply::Ready`].
    pub ops: Option<Vec<u64>>,
    pub settings: Settings,
    /// The inherited descriptors it reads [`TimingCommand`]s from and writes [`TimingReply`]s
    /// to.
    pub fds: [i32; 2],
}

/// What the parent tells a timing child, one JSON line each.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub(crate) enum TimingCommand {
    /// Run one sample of unit `unit`: one untimed operation (the first after a switch runs
    /// cold) when a sample holds several, then the sample's operations, timed.
    Sample { unit: usize },
    /// Move to CPU `cpu` (`sched_setaffinity`); the reply is [`TimingReply::Pinned`].
    Pin { cpu: usize },
    /// Run unit `unit`'s loop for `ms` milliseconds of thread CPU time under the CPU sampler
    /// (the CPU recording's) at `hz` and keep the samples unresolved; the reply is
    /// [`TimingReply::Profiled`].
    Profile { unit: usize, ms: u64, hz: u32 },
    /// Fold every profile kept (symbolising allocates, so it waits until every profile of the
    /// child is made); the reply is [`TimingReply::Profiles`].
    Fold,
    /// Exit.
    Quit,
}

/// What a timing child answers, one JSON line each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub(crate) enum TimingReply {
    /// It is about to build (and calibrate) unit `unit`: a crash before the next reply is
    /// that unit's.
    Preparing { unit: usize },
    /// Every unit is built and warm; `ops[u]` operations make one sample of unit u, whose
    /// operation took `ns_per_op[u]` while warming up.
    Ready { ops: Vec<u64>, ns_per_op: Vec<f64> },
    /// One sample: thread CPU time and wall time per operation.
    Sample { cpu_ns: f64, wall_ns: f64 },
    /// Unit `unit` failed (while building, warming up or in a sample) and is dropped; the
    /// child goes on with the others.
    Failed { unit: usize, failure: Failure },
    /// It moved to the CPU it was told.
    Pinned,
    /// A [`TimingCommand::Profile`] was made, or why not (the unit stays: a profile that
    /// fails drops nothing).
    Profiled { failure: Option<Failure> },
    /// The profiles kept, folded: per unit, its folded stacks (the text of `cpu.folded`,
    /// rooted at the configuration's name).
    Profiles { folded: Vec<(usize, String)> },
}

/// Why a request could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProtocolError {
    /// The parent speaks another protocol.
    #[error("the parent speaks worker protocol {parent}, this serprof speaks {PROTOCOL}: use a parent and workers of one version")]
    Mismatch { parent: u32 },
    /// The request is not one of this protocol.
    #[error("unreadable worker request: {message}")]
    Unreadable { message: String },
    /// Neither `--request` nor `--request-file` was given.
    #[error("{WORKER_COMMAND} needs --request JSON or --request-file FILE")]
    Missing,
}

/// The arguments of the hidden worker subcommand.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WorkerArgs {
    /// The protocol the parent speaks.
    pub protocol: u32,
    /// The request, as JSON.
    pub request: Option<String>,
    /// A file holding the request (padded to a fixed size).
    pub request_file: Option<PathBuf>,
}

impl WorkerArgs {
    /// The arguments after `__worker` (`--protocol N`, then `--request JSON` or
    /// `--request-file FILE`), read without a command-line parser: a measured program has none.
    pub(crate) fn parse(args: &[OsString]) -> Result<WorkerArgs, ProtocolError> {
        let unreadable = |message: String| ProtocolError::Unreadable { message };
        let (mut protocol, mut request, mut request_file) = (None, None, None);
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it
                .next()
                .ok_or_else(|| unreadable(format!("{} needs a value", flag.to_string_lossy())))?;
            match flag.to_str() {
                Some("--protocol") => {
                    let n = value.to_str().and_then(|v| v.parse().ok());
                    protocol = Some(n.ok_or_else(|| {
                        unreadable(format!("--protocol {}", value.to_string_lossy()))
                    })?);
                }
                Some("--request") => {
                    request = Some(
                        value
                            .to_str()
                            .map(str::to_string)
                            .ok_or_else(|| unreadable("--request is not UTF-8".into()))?,
                    );
                }
                Some("--request-file") => request_file = Some(PathBuf::from(value)),
                _ => return Err(unreadable(format!("unknown argument {flag:?}"))),
            }
        }
        Ok(WorkerArgs {
            protocol: protocol.ok_or_else(|| unreadable("no --protocol".into()))?,
            request,
            request_file,
        })
    }

    /// The request the parent sent, after checking its protocol.
    pub(crate) fn request(&self) -> Result<WorkerRequest, ProtocolError> {
        if self.protocol != PROTOCOL {
            return Err(ProtocolError::Mismatch {
                parent: self.protocol,
            });
        }
        let unreadable = |e: &dyn fmt::Display| ProtocolError::Unreadable {
            message: e.to_string(),
        };
        match (&self.request, &self.request_file) {
            (Some(json), _) => serde_json::from_str(json).map_err(|e| unreadable(&e)),
            (None, Some(file)) => {
                let bytes = std::fs::read(file).map_err(|e| unreadable(&e))?;
                let request = serde_json::from_slice(&bytes).map_err(|e| unreadable(&e))?;
                Ok(with_fixed_capacity(request))
            }
            (None, None) => Err(ProtocolError::Missing),
        }
    }
}

/// The request with every name moved into a string of [`NAME_CAPACITY`], so that a request
/// read from a file allocates the same whatever the names' lengths.
fn with_fixed_capacity(mut request: WorkerRequest) -> WorkerRequest {
    fn fixed(s: &mut String) {
        let mut owned = String::with_capacity(NAME_CAPACITY.max(s.len()));
        owned.push_str(s);
        *s = owned;
    }
    if let WorkerRequest::Record(r) = &mut request {
        fixed(&mut r.config.study);
        fixed(&mut r.config.config);
    }
    request
}

impl WorkerRequest {
    /// The arguments after the executable: `__worker --protocol N --request JSON`.
    pub(crate) fn args(&self) -> Vec<OsString> {
        let json = serde_json::to_string(self).expect("a request serialises");
        [
            WORKER_COMMAND.into(),
            "--protocol".into(),
            PROTOCOL.to_string().into(),
            "--request".into(),
            json.into(),
        ]
        .into()
    }

    /// The child's command: `exe` with [`WorkerRequest::args`], stdout discarded.
    pub(crate) fn command(&self, exe: &Path) -> Command {
        let mut cmd = Command::new(exe);
        cmd.args(self.args()).stdout(Stdio::null());
        cmd
    }

    /// Writes the request to `path`, padded to [`REQUEST_FILE_BYTES`].
    pub(crate) fn write_file(&self, path: &Path) -> anyhow::Result<()> {
        let mut bytes = serde_json::to_vec(self)?;
        if bytes.len() > REQUEST_FILE_BYTES {
            anyhow::bail!(
                "a request of {} bytes does not fit a request file",
                bytes.len()
            );
        }
        bytes.resize(REQUEST_FILE_BYTES, b' ');
        write_atomic(path, &bytes)
    }

    /// The arguments of a child that reads its request from `file` (a path relative to the
    /// child's working folder, so the command line has the same length in every run).
    pub(crate) fn file_args(file: &str) -> Vec<OsString> {
        [
            WORKER_COMMAND.into(),
            "--protocol".into(),
            PROTOCOL.to_string().into(),
            "--request-file".into(),
            file.into(),
        ]
        .into()
    }
}

/// What a [`WorkerRequest::Record`] child reports, in `.<recording>.json` of the folder.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct WorkerReport {
    pub verified: bool,
    pub payload_bytes: Option<f64>,
    pub shares_references: Option<bool>,
    /// The verification recording: the timed loop copies its input before each operation (an
    /// in-place parser), so its figures include that copy.
    #[serde(default)]
    pub copies_input: bool,
    /// The instructions recording: operations in the counted call of the measured loop.
    #[serde(default)]
    pub counted_ops: Option<u64>,
    /// The verification recording: the heap a decoded value keeps, bytes per value
    /// (`serprof_api::__private::Workload::retained_bytes`).
    #[serde(default)]
    pub retained_bytes: Option<f64>,
    pub cpu: Option<CpuStats>,
    pub alloc: Option<AllocStats>,
    /// The CPU recording's child made the allocation recording too (`settings.alloc`): the
    /// seconds that took, which the parent counts as allocation time.
    #[serde(default)]
    pub alloc_seconds: Option<f64>,
    pub error: Option<Failure>,
    /// Verification's findings that do not fail it (a corpus document's changed numbers).
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// The verification recording: the payload split by field, or why there is none.
    #[serde(default)]
    pub fields: Vec<FieldBytes>,
    #[serde(default)]
    pub fields_note: Option<String>,
    /// What the recording could not do, without failing (allocation counts without the
    /// counting allocator installed).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// The file a child writes its report of `recording` to, inside the configuration's folder.
pub(crate) fn report_path(recording: Recording, dir: &Path) -> PathBuf {
    layout::worker_report(dir, recording.as_str())
}

/// Reads (and removes) a child's report. `None` when the child wrote none (it crashed) or the
/// file does not read as a report.
pub(crate) fn take_report(recording: Recording, dir: &Path) -> Option<WorkerReport> {
    let path = report_path(recording, dir);
    let bytes = std::fs::read(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    serde_json::from_slice(&bytes).ok()
}

/// One line of the corrupt decoder's progress file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum CorruptEvent {
    /// Set-up is done: the parent's per-input clock starts here.
    Ready { start: usize },
    /// One input was decoded.
    Decoded(InputRecord),
    /// The child itself failed (not an outcome of an input).
    Failed { failure: Failure },
}

impl CorruptEvent {
    /// The event as one line of its file.
    pub(crate) fn line(&self) -> Vec<u8> {
        json_line(self)
    }
}

/// A message as one line of JSON.
pub(crate) fn json_line<T: Serialize>(message: &T) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).expect("a message serialises");
    line.push(b'\n');
    line
}

/// The reply of a probe process.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProbeReply {
    /// The median time of the reference workload, ns per operation.
    pub median_ns: f64,
}

/// What `EXE __protocol` prints: the protocol a binary speaks and what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Identity {
    pub protocol: u32,
    pub serprof_version: String,
    pub git_rev: String,
}

impl Identity {
    /// The identity of this binary, whose revision is `git_rev`.
    pub(crate) fn this(git_rev: &str) -> Identity {
        Identity {
            protocol: PROTOCOL,
            serprof_version: env!("CARGO_PKG_VERSION").into(),
            git_rev: git_rev.into(),
        }
    }
}

/// Why a binary's identity could not be had.
#[derive(Debug, thiserror::Error)]
pub(crate) enum IdentityError {
    #[error("cannot run {exe}: {source}")]
    Run { exe: String, source: std::io::Error },
    /// It printed no identity: a serprof from before numbered protocols, or not serprof.
    #[error("{exe} does not report a worker protocol (it predates protocol {PROTOCOL})")]
    Silent { exe: String },
}

/// The identity the serprof binary `exe` reports of itself.
pub(crate) fn identity_of(exe: &Path) -> Result<Identity, IdentityError> {
    let shown = exe.display().to_string();
    let out = Command::new(exe)
        .arg(IDENTITY_COMMAND)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| IdentityError::Run {
            exe: shown.clone(),
            source,
        })?;
    serde_json::from_slice::<Identity>(out.stdout.trim_ascii())
        .map_err(|_| IdentityError::Silent { exe: shown })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> WorkerRequest {
        WorkerRequest::Record(RecordRequest {
            config: ConfigId::new("formats", "serde_json"),
            recording: Recording::Timing,
            dir: PathBuf::from("/tmp/x"),
            settings: Settings::quick(),
        })
    }

    fn args(a: &[OsString]) -> WorkerArgs {
        WorkerArgs::parse(&a[1..]).unwrap()
    }

    #[test]
    fn a_request_survives_its_command_line_and_its_file() {
        let r = record();
        assert_eq!(args(&r.args()).request().unwrap(), r);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("request.json");
        r.write_file(&file).unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().len(),
            REQUEST_FILE_BYTES as u64
        );
        let from_file = args(&WorkerRequest::file_args(file.to_str().unwrap()))
            .request()
            .unwrap();
        assert_eq!(from_file, r);
    }

    #[test]
    fn another_protocol_is_refused_naming_both() {
        let mut a = args(&record().args());
        a.protocol = PROTOCOL - 1;
        let e = a.request().unwrap_err();
        assert_eq!(
            e,
            ProtocolError::Mismatch {
                parent: PROTOCOL - 1
            }
        );
        let text = e.to_string();
        assert!(text.contains(&(PROTOCOL - 1).to_string()) && text.contains(&PROTOCOL.to_string()));
    }

    #[test]
    fn timing_messages_are_lines_of_json() {
        let commands = [
            TimingCommand::Sample { unit: 7 },
            TimingCommand::Pin { cpu: 1 },
            TimingCommand::Profile {
                unit: 2,
                ms: 150,
                hz: 3989,
            },
            TimingCommand::Fold,
            TimingCommand::Quit,
        ];
        for c in commands {
            let line = json_line(&c);
            assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            assert_eq!(serde_json::from_slice::<TimingCommand>(&line).unwrap(), c);
        }
        let replies = [
            TimingReply::Preparing { unit: 2 },
            TimingReply::Ready {
                ops: vec![3, 1],
                ns_per_op: vec![1e6, 2.5e7],
            },
            TimingReply::Sample {
                cpu_ns: 1234.5,
                wall_ns: 1300.0,
            },
            TimingReply::Failed {
                unit: 0,
                failure: Failure::harness("x"),
            },
            TimingReply::Pinned,
            TimingReply::Profiled { failure: None },
            TimingReply::Profiles {
                folded: vec![(1, "cfg;loop;a 3\ncfg;loop 1\n".into())],
            },
        ];
        for r in replies {
            let line = json_line(&r);
            assert_eq!(line.last(), Some(&b'\n'));
            assert_eq!(serde_json::from_slice::<TimingReply>(&line).unwrap(), r);
        }
    }

    #[test]
    fn corrupt_events_are_lines_of_json() {
        let e = CorruptEvent::Ready { start: 3 };
        let line = e.line();
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(serde_json::from_slice::<CorruptEvent>(&line).unwrap(), e);
    }
}
