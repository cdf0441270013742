//! The executor seam: how the runner gets one recording of one configuration made.
//!
//! [`ChildProcesses`] (the real one) starts `serprof __worker` under the process guard, by
//! default this very binary; it can drive another serprof binary of the same worker protocol
//! (a build of another revision, for before/after comparisons), and checks that binary's
//! protocol first. Tests drive the runner with a stand-in that makes no process at all, so the
//! runner's logic (order, resume, failure handling, merging) is tested without spawning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::model::allocator::{self, Allocator};
use crate::model::{ConfigId, Failure, Program, Recording, Settings};
use crate::process::interrupt;
use crate::process::machine::Exclusive;
use crate::process::pipes::{Lost, Pipes};
use crate::process::{Guarded, Limits};
use crate::protocol::{
    self, identity_of, RecordRequest, TimingCommand, TimingReply, TimingRequest, WorkerReport,
    WorkerRequest, PROTOCOL,
};

/// How a recording ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The worker wrote its report (which may itself carry an engine error).
    Reported(Box<WorkerReport>),
    /// It died or hung before writing a report, or could not be started.
    Crashed(Failure),
}

/// Makes recordings.
pub(crate) trait Executor {
    /// Makes one recording of `config` with `dir` as its folder.
    fn record(
        &self,
        config: &ConfigId,
        recording: Recording,
        dir: &Path,
        settings: &Settings,
    ) -> Result<Outcome>;

    /// The serprof binary whose children make the recordings (the corrupt study starts its own
    /// children from it).
    fn exe(&self) -> Result<PathBuf>;

    /// Starts a lock-step timing child holding `configs` (its units, in this order), pinned to
    /// `cpu`; `ops`: the operations per sample an earlier child calibrated (`None`: this one
    /// calibrates).
    fn timing_child(
        &self,
        configs: &[ConfigId],
        ops: Option<Vec<u64>>,
        settings: &Settings,
        cpu: Option<usize>,
    ) -> Result<Box<dyn TimingChild>>;

    /// This executor as one several threads may share, when it is one: the recordings of
    /// different configurations then run side by side ([`Settings::jobs`]).
    fn shared(&self) -> Option<&(dyn Executor + Sync)> {
        None
    }

    /// The machine's measuring lock ([`crate::process::machine`]), for a session whose
    /// children time and record on this machine; `None` for a stand-in that starts no process.
    /// `quiet`: wait without a word.
    fn exclusive(&self, _quiet: bool) -> Result<Option<Exclusive>> {
        Ok(None)
    }
}

/// A live lock-step timing child (see [`crate::measure::timing`]): commands in, replies out.
pub(crate) trait TimingChild {
    /// Sends a command; false when the child is gone.
    fn send(&mut self, command: TimingCommand) -> bool;

    /// The next reply, waiting at most `cap`.
    fn receive(&mut self, cap: Duration) -> Result<TimingReply, Lost>;

    /// The child is lost (`how`): it is killed if it still runs, and the failure says how it
    /// ended.
    fn lost(self: Box<Self>, how: Lost) -> Failure;

    /// Asks the child to quit and waits for it (killing it after a few seconds).
    fn quit(self: Box<Self>);
}

/// A timing child or a recorder of a serprof binary, through the process guard and a pair of
/// pipes.
struct PipedChild {
    child: Option<Guarded>,
    pipes: Pipes,
    memory_cap_mib: u64,
}

impl TimingChild for PipedChild {
    fn send(&mut self, command: TimingCommand) -> bool {
        self.pipes.send(&protocol::json_line(&command))
    }

    fn receive(&mut self, cap: Duration) -> Result<TimingReply, Lost> {
        let line = self.pipes.receive(cap, &interrupt::interrupted)?;
        // A line that does not read as a reply is a broken child.
        serde_json::from_slice(&line).map_err(|_| Lost::Closed)
    }

    fn lost(mut self: Box<Self>, how: Lost) -> Failure {
        self.ended(how, Recording::Timing, None)
    }

    fn quit(mut self: Box<Self>) {
        self.send(TimingCommand::Quit);
        self.close();
    }
}

impl PipedChild {
    /// The child is lost (`how`) while making `recording`: it is killed if it still runs, and
    /// the failure says how it ended. A hung child's verdict names `cap`, the time the
    /// request was given, or else the child's age.
    fn ended(&mut self, how: Lost, recording: Recording, cap: Option<Duration>) -> Failure {
        let Some(child) = self.child.take() else {
            return Failure::harness("the worker child is gone");
        };
        let after = cap.unwrap_or_else(|| child.elapsed());
        let ended = match how {
            Lost::Interrupted => child.kill(crate::model::Ending::Interrupted),
            Lost::TimedOut => child.kill(crate::model::Ending::Hung { after }),
            Lost::Closed => match child.wait_capped(Duration::from_secs(10)) {
                Ok(ended) => ended,
                Err(e) => return Failure::of(e),
            },
        };
        Failure::Child {
            recording,
            verdict: ended.verdict,
            stderr: ended.stderr.tail,
            memory_cap_mib: self.memory_cap_mib,
        }
    }

    /// Closes the command pipe (the child's signal to end) and waits for the child.
    fn close(&mut self) {
        self.pipes.close_commands();
        if let Some(child) = self.child.take() {
            let _ = child.wait_capped(Duration::from_secs(10));
        }
    }
}

/// Which recorder may serve a recording: the same CPU, allocator and memory cap, and a forking
/// one for profiles (CPU, allocation), one that verifies itself for verification.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RecorderKey {
    cpu: Option<usize>,
    allocator: Option<Allocator>,
    memory_cap_mib: u64,
    fork: bool,
}

/// A recorder ([`WorkerRequest::Recorder`]) and what it may serve.
struct Recorder {
    key: RecorderKey,
    child: PipedChild,
}

/// The idle recorders of a [`ChildProcesses`]: a recording takes one that fits (or starts
/// one) and gives it back when the recorder answered (whatever the recording's own end); a
/// recorder that died, hung or answered out of turn is not given back. They end when the last
/// copy of their [`ChildProcesses`] goes.
#[derive(Default)]
struct Recorders {
    idle: std::sync::Mutex<Vec<Recorder>>,
}

impl Recorders {
    fn take(&self, key: &RecorderKey) -> Option<Recorder> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let at = idle.iter().position(|r| &r.key == key)?;
        Some(idle.swap_remove(at))
    }

    fn give_back(&self, recorder: Recorder) {
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(recorder);
    }
}

impl Drop for Recorders {
    fn drop(&mut self) {
        let idle = std::mem::take(self.idle.get_mut().unwrap_or_else(|e| e.into_inner()));
        for mut recorder in idle {
            recorder.child.close();
        }
    }
}

impl std::fmt::Debug for Recorders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idle = self.idle.lock().map_or(0, |i| i.len());
        write!(f, "Recorders {{ idle: {idle} }}")
    }
}

/// Real worker children of a serprof binary.
#[derive(Debug, Clone)]
pub(crate) struct ChildProcesses {
    exe: PathBuf,
    /// Each configuration's measured loop, as valgrind names it (`STUDY/CONFIG` to function):
    /// what the instructions recording counts.
    loops: BTreeMap<ConfigId, String>,
    /// The idle recorders that make verification, CPU and allocation recordings.
    recorders: std::sync::Arc<Recorders>,
    /// Another build than the one that planned (a before/after side, a layout of `run
    /// --layouts`, with only the selected configurations' engines): its timing children are
    /// sent no stamp of the planned studies, and find each configuration by its name.
    other_build: bool,
}

impl ChildProcesses {
    /// Children of this very binary, measuring `program`'s studies.
    pub(crate) fn this(program: &Program) -> Result<ChildProcesses> {
        Ok(ChildProcesses {
            exe: program.exe().to_path_buf(),
            loops: loops_of(program),
            recorders: Default::default(),
            other_build: false,
        })
    }

    /// Children of another serprof binary (a before/after side or a layout of `run --layouts`,
    /// built from `program`'s crate), after checking that it speaks this protocol.
    pub(crate) fn of(exe: &Path, program: &Program) -> Result<ChildProcesses> {
        let theirs = protocol_of(exe)?;
        if theirs != PROTOCOL {
            anyhow::bail!(
                "{} speaks worker protocol {theirs}, this serprof speaks {PROTOCOL}",
                exe.display()
            );
        }
        Ok(ChildProcesses {
            exe: exe.to_path_buf(),
            loops: loops_of(program),
            recorders: Default::default(),
            other_build: true,
        })
    }
}

fn loops_of(program: &Program) -> BTreeMap<ConfigId, String> {
    program
        .configs()
        .iter()
        .map(|c| {
            let id = ConfigId::new(&c.info.study, &c.info.config);
            (id, c.info.loop_function.to_string())
        })
        .collect()
}

/// The worker protocol of the serprof binary `exe` (`serprof __protocol`). A binary without
/// that command reports no protocol: that is an error naming it.
pub(crate) fn protocol_of(exe: &Path) -> Result<u32> {
    Ok(identity_of(exe)?.protocol)
}

/// Address space an instrumented child gets beyond `--memory-cap`, in MiB: a postcard worker
/// needs 32 MiB natively and 112 MiB under callgrind, and a 4 GiB cap works for every
/// configuration.
pub(crate) const VALGRIND_EXTRA_MIB: u64 = 1024;

/// The command of an instrumented worker: `valgrind --tool=callgrind` counting only inside the
/// measured loop (`--toggle-collect`), dumping after each call of it (`--dump-after`: the first
/// dump is the uncounted pass, the second the counted one), keeping call chains 8 deep for the
/// flame graph (`--separate-callers=8`), with costs per source line (`--dump-line=yes`), and
/// callgrind's cache and branch simulation (`--cache-sim=yes --branch-sim=yes`). The
/// environment is cleared and the worker reads its job from a file in its folder (its current
/// directory), so that the stack, and with it the counts, do not move with the environment or
/// the length of the arguments.
pub(crate) fn instrumented(
    exe: &Path,
    config: &ConfigId,
    loop_fn: &str,
    dir: &Path,
    settings: &Settings,
) -> Result<Command> {
    let request = WorkerRequest::Record(RecordRequest {
        config: config.clone(),
        recording: Recording::Instructions,
        dir: PathBuf::from("."),
        settings: settings.clone(),
    });
    request.write_file(&dir.join(crate::layout::INSTRUCTIONS_JOB))?;
    for old in callgrind_dumps(dir) {
        let _ = std::fs::remove_file(old);
    }
    // The binary under a fixed name in the child's folder: its path is on the child's stack
    // (argv[0], AT_EXECFN), and its length would move the counts.
    let link = dir.join(INSTRUMENTED_EXE);
    let _ = std::fs::remove_file(&link);
    let target = exe
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", exe.display()))?;
    std::os::unix::fs::symlink(&target, &link)
        .with_context(|| format!("cannot link {}", link.display()))?;
    let mut cmd = Command::new("valgrind");
    cmd.env_clear()
        // A study may be built from the environment (the corpus study's documents): the
        // variables named SERPROF_* reach the child, so that it builds the studies its parent
        // planned; nothing else of the environment does.
        .envs(std::env::vars_os().filter(|(k, _)| k.to_string_lossy().starts_with("SERPROF_")))
        .current_dir(dir)
        .arg("--tool=callgrind")
        .arg("-q")
        .arg(format!(
            "--callgrind-out-file={}",
            crate::layout::CALLGRIND_OUT
        ))
        .arg(format!("--toggle-collect={loop_fn}"))
        .arg(format!("--dump-after={loop_fn}"))
        .arg("--separate-callers=8")
        // Per source line costs (callgrind's default, stated: `hotspots --lines` reads them;
        // inlined code is attributed to the inlined function's file and line through `fi=`).
        // Per instruction addresses (`--dump-instr=yes`) are not needed for lines.
        .arg("--dump-line=yes")
        // Cache and branch simulation, exact per function; caches of fixed sizes so the counts
        // do not move with the machine's.
        .args(["--cache-sim=yes", "--branch-sim=yes"])
        .args(crate::model::result::SIMULATED_CACHES)
        .arg(format!("./{INSTRUMENTED_EXE}"))
        .args(WorkerRequest::file_args(crate::layout::INSTRUCTIONS_JOB));
    // Without address-space randomisation: the simulated branch predictor is indexed by
    // instruction addresses, so with them randomised the mispredictions of one binary move
    // from run to run (the instructions do not).
    use std::os::unix::process::CommandExt;
    // SAFETY: personality(2) is async-signal-safe and touches no memory of the parent; a
    // refusal (a sandbox that forbids it) only leaves the randomisation on.
    unsafe {
        cmd.pre_exec(|| {
            libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
            Ok(())
        });
    }
    Ok(cmd)
}

/// The name of the instrumented binary's link in the child's folder.
const INSTRUMENTED_EXE: &str = "serprof";

/// A fresh folder for one instrumented child, whose path has the same length on every call:
/// `$TMPDIR/serprof-callgrind-XXXXXXXX`. The counts of one binary move with the length of the
/// child's working folder: valgrind's own allocations for the path move where the client's
/// memory lands, and memset/memcpy cost depends on alignment (bytes/serde_json-base64: 129,583,848
/// instructions in folders of up to 35 characters, 129,571,466 from 36 on). So the child never
/// runs in the run folder itself.
pub(crate) fn instrumented_scratch() -> Result<PathBuf> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = std::env::temp_dir();
    for _ in 0..1000 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tag = std::process::id().wrapping_mul(0x9E37_79B9).wrapping_add(n);
        let dir = base.join(format!("serprof-callgrind-{tag:08x}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => anyhow::bail!("cannot create {}: {e}", dir.display()),
        }
    }
    anyhow::bail!("cannot create a scratch folder in {}", base.display())
}

/// Moves the files an instrumented child left in `scratch` into `dir` and removes `scratch`.
fn collect_scratch(scratch: &Path, dir: &Path) -> Result<()> {
    for e in std::fs::read_dir(scratch)?.flatten() {
        let from = e.path();
        if e.file_name() == INSTRUMENTED_EXE {
            continue;
        }
        let to = dir.join(e.file_name());
        if std::fs::rename(&from, &to).is_err() {
            std::fs::copy(&from, &to)
                .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
        }
    }
    let _ = std::fs::remove_dir_all(scratch);
    Ok(())
}

/// The callgrind dumps in `dir` (`.callgrind.out`, `.callgrind.out.1`, ...).
pub(crate) fn callgrind_dumps(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(crate::layout::CALLGRIND_OUT))
        })
        .collect();
    v.sort();
    v
}

/// Names the allocator of `configs` (their `@ALLOCATOR` suffix) in the child's environment, or
/// takes any inherited name out when they name none; configurations of two allocators cannot
/// share a child.
fn set_allocator(cmd: &mut Command, configs: &[ConfigId]) -> Result<()> {
    let named: Vec<_> = configs
        .iter()
        .map(|c| c.allocator)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    match named[..] {
        [Some(a)] => {
            cmd.env(allocator::ENV, a.name());
        }
        [] | [None] => {
            cmd.env_remove(allocator::ENV);
        }
        _ => anyhow::bail!(
            "one child cannot hold configurations of several allocators ({})",
            configs
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
    Ok(())
}

impl ChildProcesses {
    /// Starts a recorder for `key`.
    fn start_recorder(&self, key: RecorderKey, config: &ConfigId) -> Result<Recorder> {
        let child = self.piped_child(
            |fds| WorkerRequest::Recorder {
                fds,
                fork: key.fork,
            },
            std::slice::from_ref(config),
            key.memory_cap_mib,
            key.cpu,
        )?;
        Ok(Recorder { child, key })
    }

    /// Starts a child of `request` (given the descriptors of its pipes) under the guard, with
    /// the allocator `configs` name, `memory_cap_mib` and pinned to `cpu`.
    fn piped_child(
        &self,
        request: impl FnOnce([i32; 2]) -> WorkerRequest,
        configs: &[ConfigId],
        memory_cap_mib: u64,
        cpu: Option<usize>,
    ) -> Result<PipedChild> {
        let (pipes, ends) = Pipes::new()?;
        let mut cmd = request(ends.fds()).command(&self.exe);
        set_allocator(&mut cmd, configs)?;
        ends.inherit(&mut cmd);
        let limits = Limits {
            address_space: memory_cap_mib.saturating_mul(1024 * 1024),
            cpu,
        };
        let child = Guarded::spawn(cmd, limits)?;
        // The parent's copies of the child's ends go now: the child's death then closes the
        // reply pipe.
        drop(ends);
        Ok(PipedChild {
            child: Some(child),
            pipes,
            memory_cap_mib,
        })
    }

    /// One verification, CPU or allocation recording, made by a recorder (a CPU or allocation
    /// recording in a child it forks): one that is idle and fits, else a new one. The
    /// recording's end is judged as the guard judges a child of its own, from the status and
    /// stderr the recorder reports. A recording
    /// that hangs past the time cap is killed with its recorder (one process group); a recorder
    /// that dies or answers out of turn is judged itself; neither is used again, and the next
    /// recording starts another.
    fn record_in_recorder(
        &self,
        config: &ConfigId,
        recording: Recording,
        dir: &Path,
        settings: &Settings,
    ) -> Result<Outcome> {
        let key = RecorderKey {
            cpu: settings.pin_cpu,
            allocator: config.allocator,
            memory_cap_mib: settings.memory_cap_mib,
            fork: recording != Recording::Verify,
        };
        let line = protocol::json_line(&RecordRequest {
            config: config.clone(),
            recording,
            dir: dir.to_path_buf(),
            settings: settings.clone(),
        });
        // An idle recorder may have died meanwhile: then a new one takes the request.
        let idle = self
            .recorders
            .take(&key)
            .and_then(|mut r| r.send(&line).then_some(r));
        let mut recorder = match idle {
            Some(r) => r,
            None => {
                let mut r = self.start_recorder(key, config)?;
                if !r.send(&line) {
                    let failure = r.child.ended(Lost::Closed, recording, None);
                    return Ok(Outcome::Crashed(failure));
                }
                r
            }
        };
        let cap = Duration::from_secs(settings.child_time_cap_s.max(1));
        let answer = recorder
            .child
            .pipes
            .receive(cap, &interrupt::interrupted)
            .and_then(|l| {
                serde_json::from_slice::<protocol::RecorderReply>(&l).map_err(|_| Lost::Closed)
            });
        match answer {
            Ok(protocol::RecorderReply::Ended { status, stderr }) => {
                // The recording's child ended; the recorder goes on.
                self.recorders.give_back(recorder);
                let verdict = Guarded::judge_forked(status, &stderr);
                if let crate::model::Ending::Exited { .. } = verdict {
                    if let Some(report) = protocol::take_report(recording, dir) {
                        return Ok(Outcome::Reported(Box::new(report)));
                    }
                }
                Ok(Outcome::Crashed(Failure::Child {
                    recording,
                    verdict,
                    stderr: stderr.tail,
                    memory_cap_mib: settings.memory_cap_mib,
                }))
            }
            Err(how) => Ok(Outcome::Crashed(recorder.child.ended(
                how,
                recording,
                Some(cap),
            ))),
        }
    }
}

impl Recorder {
    /// Sends one request, its stderr forgotten first; false when the recorder is gone.
    fn send(&mut self, line: &[u8]) -> bool {
        match &self.child.child {
            Some(child) => child.clear_stderr(),
            None => return false,
        }
        self.child.pipes.send(line)
    }
}

/// `valgrind --version`, or a one-line misuse error saying how to install it.
pub(crate) fn valgrind_version() -> Result<String> {
    match Command::new("valgrind").arg("--version").stdin(Stdio::null()).output() {
        Ok(out) if out.status.success() => {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        }
        _ => crate::misuse!(
            "--instructions needs valgrind, which is not installed: apt-get install valgrind (Debian, Ubuntu) or your system's valgrind package"
        ),
    }
}

impl Executor for ChildProcesses {
    fn record(
        &self,
        config: &ConfigId,
        recording: Recording,
        dir: &Path,
        settings: &Settings,
    ) -> Result<Outcome> {
        let _span = tracing::info_span!("child", recording = recording.as_str(), config = %config)
            .entered();
        let _ = std::fs::remove_file(protocol::report_path(recording, dir));
        if matches!(
            recording,
            Recording::Verify | Recording::Cpu | Recording::Alloc
        ) {
            return self.record_in_recorder(config, recording, dir, settings);
        }
        let mut limits = Limits {
            address_space: settings.memory_cap_mib.saturating_mul(1024 * 1024),
            cpu: settings.pin_cpu,
        };
        let cmd;
        let mut scratch = None;
        if recording == Recording::Instructions {
            for old in callgrind_dumps(dir) {
                let _ = std::fs::remove_file(old);
            }
            let folder = instrumented_scratch()?;
            let loop_fn = self
                .loops
                .get(&config.under(None))
                .with_context(|| format!("unknown configuration {config}"))?;
            cmd = instrumented(&self.exe, config, loop_fn, &folder, settings)?;
            scratch = Some(folder);
            // valgrind's own heap and translation cache need room beyond the program's.
            if limits.address_space > 0 {
                limits.address_space = limits
                    .address_space
                    .saturating_add(VALGRIND_EXTRA_MIB * 1024 * 1024);
            }
        } else {
            cmd = WorkerRequest::Record(RecordRequest {
                config: config.clone(),
                recording,
                dir: dir.to_path_buf(),
                settings: settings.clone(),
            })
            .command(&self.exe);
        }
        let mut cmd = cmd;
        set_allocator(&mut cmd, std::slice::from_ref(config))?;
        let ended = Guarded::spawn(cmd, limits).and_then(|child| {
            child.wait_capped(Duration::from_secs(settings.child_time_cap_s.max(1)))
        });
        if let Some(folder) = &scratch {
            collect_scratch(folder, dir)?;
        }
        let ended = ended?;
        if let crate::model::Ending::Exited { .. } = ended.verdict {
            if let Some(report) = protocol::take_report(recording, dir) {
                return Ok(Outcome::Reported(Box::new(report)));
            }
        }
        Ok(Outcome::Crashed(Failure::Child {
            recording,
            verdict: ended.verdict,
            stderr: ended.stderr.tail,
            memory_cap_mib: settings.memory_cap_mib,
        }))
    }

    fn exe(&self) -> Result<PathBuf> {
        Ok(self.exe.clone())
    }

    fn shared(&self) -> Option<&(dyn Executor + Sync)> {
        Some(self)
    }

    fn exclusive(&self, quiet: bool) -> Result<Option<Exclusive>> {
        Ok(Some(Exclusive::acquire(quiet)?))
    }

    fn timing_child(
        &self,
        configs: &[ConfigId],
        ops: Option<Vec<u64>>,
        settings: &Settings,
        cpu: Option<usize>,
    ) -> Result<Box<dyn TimingChild>> {
        let mut settings = settings.clone();
        if self.other_build {
            settings.studies = Default::default();
        }
        let memory_cap_mib = settings.memory_cap_mib;
        let child = self.piped_child(
            |fds| {
                WorkerRequest::Timing(TimingRequest {
                    configs: configs.to_vec(),
                    ops,
                    settings,
                    fds,
                })
            },
            configs,
            memory_cap_mib,
            cpu,
        )?;
        Ok(Box::new(child))
    }
}

/// A stand-in timing child for tests: it runs in the test's process and takes each sample's
/// time from a function.
#[cfg(test)]
pub(crate) mod fake {
    use std::collections::VecDeque;
    use std::rc::Rc;

    use super::*;

    /// A sample's time per operation for a configuration; `None`: the child dies.
    pub(crate) type Sampler = Rc<dyn Fn(&ConfigId) -> Option<f64>>;

    pub(crate) struct FakeChild {
        configs: Vec<ConfigId>,
        replies: VecDeque<TimingReply>,
        sampler: Sampler,
        dead: bool,
        /// Units profiled since the last `Fold`.
        profiled: Vec<usize>,
    }

    impl FakeChild {
        pub(crate) fn new(
            configs: &[ConfigId],
            ops: Option<Vec<u64>>,
            sampler: Sampler,
        ) -> FakeChild {
            let mut replies: VecDeque<TimingReply> = (0..configs.len())
                .map(|unit| TimingReply::Preparing { unit })
                .collect();
            replies.push_back(TimingReply::Ready {
                ops: ops.unwrap_or_else(|| vec![10; configs.len()]),
                ns_per_op: vec![100.0; configs.len()],
            });
            FakeChild {
                configs: configs.to_vec(),
                replies,
                sampler,
                dead: false,
                profiled: Vec::new(),
            }
        }
    }

    impl TimingChild for FakeChild {
        fn send(&mut self, command: TimingCommand) -> bool {
            match command {
                TimingCommand::Sample { unit } => match (self.sampler)(&self.configs[unit]) {
                    Some(ns) => self.replies.push_back(TimingReply::Sample {
                        cpu_ns: ns,
                        wall_ns: ns,
                    }),
                    None => self.dead = true,
                },
                TimingCommand::Pin { .. } => self.replies.push_back(TimingReply::Pinned),
                TimingCommand::Profile { unit, .. } => {
                    self.profiled.push(unit);
                    self.replies
                        .push_back(TimingReply::Profiled { failure: None })
                }
                TimingCommand::Fold => {
                    let folded = self.profiled.drain(..);
                    let folded = folded.map(|u| (u, format!("{};loop 10\n", self.configs[u])));
                    self.replies.push_back(TimingReply::Profiles {
                        folded: folded.collect(),
                    })
                }
                TimingCommand::Quit => {}
            }
            !self.dead || matches!(command, TimingCommand::Sample { .. })
        }

        fn receive(&mut self, _: Duration) -> Result<TimingReply, Lost> {
            match self.dead {
                true => Err(Lost::Closed),
                false => self.replies.pop_front().ok_or(Lost::TimedOut),
            }
        }

        fn lost(self: Box<Self>, _: Lost) -> Failure {
            Failure::Child {
                recording: Recording::Timing,
                verdict: crate::model::Ending::Signal { signal: 11 },
                stderr: Vec::new(),
                memory_cap_mib: 0,
            }
        }

        fn quit(self: Box<Self>) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(cmd: &Command) -> Option<Option<String>> {
        cmd.get_envs()
            .find(|(k, _)| *k == allocator::ENV)
            .map(|(_, v)| v.map(|v| v.to_string_lossy().into_owned()))
    }

    #[test]
    fn a_child_gets_its_configurations_allocator_and_never_two() {
        let id = |s: &str| format!("formats/{s}").parse::<ConfigId>().unwrap();
        let mut cmd = Command::new("true");
        set_allocator(&mut cmd, &[id("a@mimalloc"), id("b@mimalloc")]).unwrap();
        assert_eq!(env_of(&cmd), Some(Some("mimalloc".into())));
        // No allocator named: an inherited name is taken out.
        let mut cmd = Command::new("true");
        set_allocator(&mut cmd, &[id("a"), id("b")]).unwrap();
        assert_eq!(env_of(&cmd), Some(None));
        let mut cmd = Command::new("true");
        let err = set_allocator(&mut cmd, &[id("a@system"), id("b"), id("a@jemalloc")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("several allocators"), "{err}");
    }
}
