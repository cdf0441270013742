//! Lock-step timing: the configurations of a run (or the two builds of a before-after, or the
//! two sides of `ab`) measured sample by sample, moments apart, by children that hold them all.
//!
//! A *lane* is one build (one [`super::executor::Executor`]); a schedule has one lane for a run and for `ab`,
//! two for a before-after. The schedule starts `settings.processes` sets of children one after
//! another, a set being one child per lane, each holding every configuration still standing.
//! The parent drives them: round after round it walks the configurations in a shuffled order
//! (seeded from `settings.seed`, the child and the round) and has each lane's child run one
//! sample of that configuration ([`crate::measure::timing`]). With the lanes taking turns on one
//! CPU, the first lane alternates with the round and position (A B, B A, ...); placed on two
//! CPUs, both lanes run the sample at the same moment and swap CPUs after every round.
//!
//! A child's samples, in the order they ran, give each configuration's state-adjusted time
//! ([`crate::model::lockstep`]); the children are the processes of its `time_ns`, and a ratio
//! pairs the children of one set ([`crate::model::stats::RatioStats::by_round`]). The
//! children's spread (heap and code layout, the CPU's moods across seconds) makes the interval.
//!
//! Only verified configurations take part. A configuration whose sample fails (an engine
//! error or panic, which the child reports and survives) is dropped from its lane. A child that
//! dies or hangs is killed with its partner, the configuration it was running is dropped with
//! the child's verdict, and the set is run again without it.

use std::time::{Duration, Instant};

use crate::model::Planned;

use super::executor::TimingChild;
use super::lane::Lane;
use super::progress::Progress;
use super::rounds::{lane_order, round_order};
use crate::analyze::moved::SetProfile;
use crate::model::lockstep::{self, Pair, Placement, Sample, Schedule};
use crate::model::stats::{median, ProcessTiming, TimingMethod};
use crate::model::{ConfigId, Failure, Settings, TimeStats};
use crate::process::interrupt;
use crate::process::pipes::Lost;
use crate::protocol::{TimingCommand, TimingReply};

mod profiles;

/// What to time.
pub(crate) struct Job<'a> {
    pub lanes: Vec<Lane<'a>>,
    pub configs: Vec<ConfigId>,
    /// `active[lane][c]`: configuration c takes part in that lane (it was verified there).
    pub active: Vec<Vec<bool>>,
    /// Per configuration, the number of children it takes part in (a study's budget may give
    /// it fewer than `settings.processes`).
    pub children: Vec<usize>,
    pub settings: Settings,
    pub placement: Placement,
}

impl<'a> Job<'a> {
    /// The job of `lanes` timing `configs`, each with the children its study's budget gives
    /// it, every child on one CPU (the pinned one of `settings`).
    pub(crate) fn new(
        lanes: Vec<Lane<'a>>,
        configs: &[&Planned],
        active: Vec<Vec<bool>>,
        settings: &Settings,
    ) -> Job<'a> {
        Job {
            lanes,
            configs: configs.iter().map(|c| c.id()).collect(),
            active,
            children: configs
                .iter()
                .map(|c| super::budgeted(settings, c).processes.max(1))
                .collect(),
            settings: settings.clone(),
            placement: Placement::SameCpu {
                cpu: settings.pin_cpu,
            },
        }
    }
}

/// The figures of one configuration in one lane.
#[derive(Debug, Default)]
pub(crate) struct UnitTiming {
    /// One per child it finished in.
    pub processes: Vec<ProcessTiming>,
    /// Why it was dropped.
    pub failure: Option<Failure>,
    /// The short CPU profile of each set it finished in (`settings.functions_ms`).
    pub profiles: Vec<SetProfile>,
}

impl UnitTiming {
    /// Its `time_ns`: across its children, marked as of schedule `id`.
    pub(crate) fn time_stats(&self, id: u64) -> Option<TimeStats> {
        let mut t = TimeStats::from_processes(self.processes.clone())?;
        t.method = TimingMethod::LockStep;
        t.schedule = Some(id);
        Some(t)
    }
}

/// What a schedule measured.
pub(crate) struct Timed {
    /// `units[lane][c]`.
    pub units: Vec<Vec<UnitTiming>>,
    pub schedule: Schedule,
    /// The run was interrupted: the figures are incomplete.
    pub interrupted: bool,
}

/// Why a set of children stopped early.
enum Stop {
    /// A child was lost; the set runs again without the configuration it was running.
    Restart,
    Interrupted,
}

/// One sample as the parent records it.
#[derive(Debug, Clone, Copy)]
struct Record {
    lane: usize,
    config: usize,
    /// The round's CPU arrangement (split placement).
    arrangement: usize,
    /// The step it belongs to: samples of one step of a split placement ran at once.
    step: usize,
    cpu_ns: f64,
    wall_ns: f64,
}

/// A profile of configuration `config` by lane `lane`'s child of a set.
struct UnitProfile {
    lane: usize,
    config: usize,
    profile: SetProfile,
}

/// A live set of children, one per lane.
struct Set<'j> {
    job: &'j Job<'j>,
    children: Vec<Option<Box<dyn TimingChild>>>,
    /// Per lane, the configuration (global index) of each of its child's units.
    units: Vec<Vec<usize>>,
    /// What each lane's child is running, for blaming a loss.
    in_flight: Vec<Option<usize>>,
    cap: Duration,
    /// The lanes in the order their children started (the first takes turns by set).
    order: Vec<usize>,
}

/// The schedule's state across sets.
struct ScheduleState {
    failures: Vec<Vec<Option<Failure>>>,
    /// Per lane, operations per sample of each configuration in the current set (0: not
    /// known).
    ops: Vec<Vec<u64>>,
    /// Per lane, ns per operation of each configuration, from the calibration.
    ns_per_op: Vec<Vec<f64>>,
    restarts: Vec<String>,
    rounds: Option<usize>,
}

impl ScheduleState {
    fn standing(&self, job: &Job, lane: usize, c: usize, child: usize) -> bool {
        job.active[lane][c] && self.failures[lane][c].is_none() && child < job.children[c]
    }

    fn drop_unit(&mut self, job: &Job, lane: usize, c: usize, child: usize, failure: Failure) {
        self.restarts.push(format!(
            "child {} of {}: {} dropped: {failure}",
            child + 1,
            job.lanes[lane].kind.name(),
            job.configs[c]
        ));
        self.failures[lane][c] = Some(failure);
    }
}

impl<'j> Set<'j> {
    /// Starts child `k` of every lane with the configurations still standing, and waits until
    /// each is ready.
    fn start(job: &'j Job<'j>, k: usize, state: &mut ScheduleState) -> Result<Set<'j>, Stop> {
        let lanes = job.lanes.len();
        let mut set = Set {
            job,
            children: (0..lanes).map(|_| None).collect(),
            units: vec![Vec::new(); lanes],
            in_flight: vec![None; lanes],
            cap: Duration::from_secs(job.settings.child_time_cap_s.max(1)),
            order: Vec::new(),
        };
        // The lane that starts first and calibrates takes turns from set to set, so that
        // neither build is always the one whose child started first or sized the samples.
        let first = k % lanes;
        let order: Vec<usize> = (0..lanes).map(|i| (first + i) % lanes).collect();
        set.order.clone_from(&order);
        for &lane in &order {
            let units: Vec<usize> = (0..job.configs.len())
                .filter(|&c| state.standing(job, lane, c, k))
                .collect();
            if units.is_empty() {
                continue;
            }
            let ids: Vec<ConfigId> = units.iter().map(|&c| job.configs[c].clone()).collect();
            // Every set calibrates anew in its first lane, so that the operations per sample
            // (and whatever they do to a configuration's time) differ between children and
            // show in the interval; the other lanes use the first's, so that two builds run
            // samples of one size.
            let known = lane != first && units.iter().all(|&c| state.ops[first][c] > 0);
            let ops = known.then(|| units.iter().map(|&c| state.ops[first][c]).collect());
            let cpu = match job.placement {
                Placement::SameCpu { cpu } => cpu,
                Placement::Split { cpus } => cpus.get(lane).copied(),
            };
            match job.lanes[lane]
                .exec(k)
                .timing_child(&ids, ops, &job.settings, cpu)
            {
                Ok(child) => {
                    set.children[lane] = Some(child);
                    set.units[lane] = units;
                    if lane == first {
                        set.wait_ready(lane, k, state)?;
                    }
                    continue;
                }
                Err(e) => {
                    // The binary cannot be started: nothing of this lane can be timed.
                    let failure = Failure::of(e);
                    for &c in &units {
                        state.drop_unit(job, lane, c, k, failure.clone());
                    }
                    continue;
                }
            }
        }
        for &lane in &order[1..] {
            set.wait_ready(lane, k, state)?;
        }
        Ok(set)
    }

    /// Reads lane `lane`'s replies up to `Ready`.
    fn wait_ready(&mut self, lane: usize, k: usize, state: &mut ScheduleState) -> Result<(), Stop> {
        if self.children[lane].is_none() {
            return Ok(());
        }
        loop {
            match self.receive(lane, k, state)? {
                TimingReply::Preparing { unit } => {
                    self.in_flight[lane] = self.units[lane].get(unit).copied();
                }
                TimingReply::Ready { ops, ns_per_op } => {
                    self.in_flight[lane] = None;
                    for (u, &c) in self.units[lane].iter().enumerate() {
                        state.ops[lane][c] = ops.get(u).copied().unwrap_or(0);
                        state.ns_per_op[lane][c] = ns_per_op.get(u).copied().unwrap_or(f64::NAN);
                    }
                    return Ok(());
                }
                TimingReply::Failed { unit, failure } => {
                    if let Some(&c) = self.units[lane].get(unit) {
                        state.drop_unit(self.job, lane, c, k, failure);
                    }
                }
                TimingReply::Sample { .. }
                | TimingReply::Pinned
                | TimingReply::Profiled { .. }
                | TimingReply::Profiles { .. } => {
                    return Err(self.lose(lane, Lost::Closed, k, state));
                }
            }
        }
    }

    /// The next reply of a lane's child; a loss ends the set.
    fn receive(
        &mut self,
        lane: usize,
        k: usize,
        state: &mut ScheduleState,
    ) -> Result<TimingReply, Stop> {
        let child = self.children[lane].as_mut().expect("a live child");
        match child.receive(self.cap) {
            Ok(reply) => Ok(reply),
            Err(how) => Err(self.lose(lane, how, k, state)),
        }
    }

    /// Lane `lane`'s child is lost: the configuration it was running (every one it holds, when
    /// it was running none) is dropped with the child's verdict, and the other children quit.
    fn lose(&mut self, lane: usize, how: Lost, k: usize, state: &mut ScheduleState) -> Stop {
        let child = self.children[lane].take().expect("a live child");
        let failure = child.lost(how);
        self.quit();
        if how == Lost::Interrupted {
            return Stop::Interrupted;
        }
        let blamed: Vec<usize> = match self.in_flight[lane] {
            Some(c) => vec![c],
            None => self.units[lane].clone(),
        };
        for c in blamed {
            if state.failures[lane][c].is_none() {
                state.drop_unit(self.job, lane, c, k, failure.clone());
            }
        }
        Stop::Restart
    }

    /// Sends `command` to lane `lane`'s child.
    fn send(
        &mut self,
        lane: usize,
        command: TimingCommand,
        k: usize,
        state: &mut ScheduleState,
    ) -> Result<(), Stop> {
        let child = self.children[lane].as_mut().expect("a live child");
        if child.send(command) {
            Ok(())
        } else {
            Err(self.lose(lane, Lost::Closed, k, state))
        }
    }

    /// Whether configuration c runs in lane `lane` of this set.
    fn holds(&self, lane: usize, c: usize, state: &ScheduleState) -> Option<usize> {
        if self.children[lane].is_none() || state.failures[lane][c].is_some() {
            return None;
        }
        self.units[lane].iter().position(|&x| x == c)
    }

    /// Starts a sample of c in `lane`; false when the lane does not hold it.
    fn start_sample(
        &mut self,
        lane: usize,
        c: usize,
        k: usize,
        state: &mut ScheduleState,
    ) -> Result<bool, Stop> {
        let Some(unit) = self.holds(lane, c, state) else {
            return Ok(false);
        };
        self.in_flight[lane] = Some(c);
        self.send(lane, TimingCommand::Sample { unit }, k, state)?;
        Ok(true)
    }

    /// The reply to a started sample: its (CPU, wall) ns per operation, or `None` when the
    /// configuration failed and was dropped.
    fn finish_sample(
        &mut self,
        lane: usize,
        c: usize,
        k: usize,
        state: &mut ScheduleState,
    ) -> Result<Option<(f64, f64)>, Stop> {
        let reply = self.receive(lane, k, state)?;
        self.in_flight[lane] = None;
        match reply {
            TimingReply::Sample { cpu_ns, wall_ns } => Ok(Some((cpu_ns, wall_ns))),
            TimingReply::Failed { failure, .. } => {
                state.drop_unit(self.job, lane, c, k, failure);
                Ok(None)
            }
            _ => {
                self.in_flight[lane] = Some(c);
                Err(self.lose(lane, Lost::Closed, k, state))
            }
        }
    }

    /// Moves every lane's child to its CPU of round `round` (split placement).
    fn pin(
        &mut self,
        cpus: [usize; 2],
        round: usize,
        k: usize,
        state: &mut ScheduleState,
    ) -> Result<(), Stop> {
        for lane in 0..self.children.len() {
            if self.children[lane].is_some() {
                // The lanes swap CPUs every round.
                let mut order = cpus;
                order.rotate_left(round % cpus.len());
                let Some(&cpu) = order.get(lane) else {
                    continue;
                };
                self.send(lane, TimingCommand::Pin { cpu }, k, state)?;
            }
        }
        for lane in 0..self.children.len() {
            if self.children[lane].is_some() {
                match self.receive(lane, k, state)? {
                    TimingReply::Pinned => {}
                    _ => return Err(self.lose(lane, Lost::Closed, k, state)),
                }
            }
        }
        Ok(())
    }

    /// Quits every child still live.
    fn quit(&mut self) {
        for child in self.children.iter_mut().filter_map(Option::take) {
            child.quit();
        }
    }
}

/// Rounds per child: `settings.rounds`, or more when a round is short, so that a child
/// measures for at least `settings.child_ms`.
fn rounds_for(settings: &Settings, state: &ScheduleState) -> usize {
    let round_ns: f64 = state
        .ops
        .iter()
        .zip(&state.ns_per_op)
        .flat_map(|(ops, ns)| ops.iter().zip(ns))
        .filter(|(&o, n)| o > 0 && n.is_finite())
        .map(|(&o, &n)| o as f64 * n)
        .sum();
    let wanted = match round_ns > 0.0 {
        true => (settings.child_ms as f64 * 1e6 / round_ns).ceil() as usize,
        false => 0,
    };
    settings.rounds.max(wanted).clamp(1, 100_000)
}

/// Runs child set `k` to the end; its samples in the order they ran, and each lane's profiles
/// of its configurations (lane, configuration, profile).
fn run_set(
    job: &Job,
    k: usize,
    state: &mut ScheduleState,
    progress: &Progress,
) -> Result<(Vec<Record>, Vec<UnitProfile>), Stop> {
    let mut set = Set::start(job, k, state)?;
    let rounds = match state.rounds {
        Some(r) => r,
        None => {
            let r = rounds_for(&job.settings, state);
            state.rounds = Some(r);
            r
        }
    };
    let lanes = job.lanes.len();
    let mut records = Vec::new();
    let mut step = 0;
    for round in 0..rounds {
        if interrupt::interrupted() {
            set.quit();
            return Err(Stop::Interrupted);
        }
        progress.recording(
            "lock-step timing",
            &format!(
                "child {}/{}, round {}/{rounds}",
                k + 1,
                job.settings.processes.max(1),
                round + 1
            ),
        );
        let arrangement = round % 2;
        if let Placement::Split { cpus } = job.placement {
            if round > 0 {
                set.pin(cpus, round, k, state)?;
            }
        }
        let standing: Vec<usize> = (0..job.configs.len())
            .filter(|&c| (0..lanes).any(|l| set.holds(l, c, state).is_some()))
            .collect();
        for (position, &i) in round_order(standing.len(), job.settings.seed, k, round)
            .iter()
            .enumerate()
        {
            let c = standing[i];
            let together = matches!(job.placement, Placement::Split { .. });
            let order = lane_order(lanes, round, position);
            // Taking turns, a lane's sample ends before the next lane's begins; together
            // (split placement), every lane's sample starts before any is read.
            let mut running = Vec::new();
            for (i, &lane) in order.iter().enumerate() {
                if set.start_sample(lane, c, k, state)? {
                    running.push(lane);
                }
                if together && i + 1 < order.len() {
                    continue;
                }
                for lane in running.drain(..) {
                    if let Some((cpu_ns, wall_ns)) = set.finish_sample(lane, c, k, state)? {
                        records.push(Record {
                            lane,
                            config: c,
                            arrangement,
                            step,
                            cpu_ns,
                            wall_ns,
                        });
                    }
                }
            }
            step += 1;
        }
    }
    let profiles = match job.settings.functions_ms {
        0 => Vec::new(),
        ms => set.profiles(ms, k, state, progress)?,
    };
    set.quit();
    Ok((records, profiles))
}

/// The processes of child set `k`, from its samples: per lane and configuration.
fn estimate(
    job: &Job,
    k: usize,
    records: &[Record],
    state: &ScheduleState,
) -> Vec<Vec<Option<ProcessTiming>>> {
    let (lanes, configs) = (job.lanes.len(), job.configs.len());
    let level: Vec<Vec<f64>>;
    let mut adjusted: Vec<Vec<f64>> = vec![Vec::new(); lanes * configs];
    match job.placement {
        Placement::SameCpu { .. } => {
            let samples: Vec<Sample> = records
                .iter()
                .map(|r| Sample {
                    unit: r.lane * configs + r.config,
                    ns: r.cpu_ns,
                })
                .collect();
            let l = lockstep::levels(&samples, lanes * configs);
            for (i, s) in samples.iter().enumerate() {
                adjusted[s.unit].push(l.adjusted(&samples, i));
            }
            level = (0..lanes)
                .map(|lane| l.level[lane * configs..(lane + 1) * configs].to_vec())
                .collect();
        }
        Placement::Split { .. } => {
            let mut pairs = Vec::new();
            for w in records.windows(2) {
                if w[0].step == w[1].step && w[0].lane != w[1].lane {
                    let (a, b) = if w[0].lane == 0 {
                        (w[0], w[1])
                    } else {
                        (w[1], w[0])
                    };
                    pairs.push(Pair {
                        unit: a.config,
                        arrangement: a.arrangement,
                        ns: [a.cpu_ns, b.cpu_ns],
                    });
                }
            }
            let split = lockstep::split_levels(&pairs, configs);
            level = (0..lanes)
                .map(|lane| {
                    (0..configs)
                        .map(|c| {
                            let paired = split.get(lane).map_or(f64::NAN, |v| v[c]);
                            // A configuration whose partner was dropped ran alone: its median.
                            if paired.is_finite() {
                                paired
                            } else {
                                let own: Vec<f64> = records
                                    .iter()
                                    .filter(|r| r.lane == lane && r.config == c)
                                    .map(|r| r.cpu_ns)
                                    .collect();
                                median(&own)
                            }
                        })
                        .collect()
                })
                .collect();
            for r in records {
                adjusted[r.lane * configs + r.config].push(r.cpu_ns);
            }
        }
    }
    let cpu = match job.placement {
        Placement::SameCpu { cpu } => cpu,
        Placement::Split { .. } => None,
    };
    (0..lanes)
        .map(|lane| {
            (0..configs)
                .map(|c| {
                    let mine: Vec<(usize, &Record)> = records
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| r.lane == lane && r.config == c)
                        .collect();
                    if mine.is_empty()
                        || state.failures[lane][c].is_some()
                        || !level[lane][c].is_finite()
                    {
                        return None;
                    }
                    let batches: Vec<f64> = mine.iter().map(|(_, r)| r.cpu_ns).collect();
                    let wall: Vec<f64> = mine.iter().map(|(_, r)| r.wall_ns).collect();
                    let adj = &adjusted[lane * configs + c];
                    let m = level[lane][c];
                    let deviations: Vec<f64> = adj.iter().map(|x| (x - m).abs()).collect();
                    Some(ProcessTiming {
                        round: k,
                        cpu,
                        median: m,
                        mad: median(&deviations),
                        wall_median: median(&wall),
                        ops_per_batch: state.ops[lane][c],
                        unadjusted_median: Some(median(&batches)),
                        batches,
                        slots: mine.iter().map(|(i, _)| *i as u32).collect(),
                    })
                })
                .collect()
        })
        .collect()
}

/// Runs the schedule of `job`.
pub(crate) fn run(job: &Job, progress: &Progress) -> Timed {
    let started = Instant::now();
    let (lanes, configs) = (job.lanes.len(), job.configs.len());
    let mut state = ScheduleState {
        failures: vec![vec![None; configs]; lanes],
        ops: vec![vec![0; configs]; lanes],
        ns_per_op: vec![vec![f64::NAN; configs]; lanes],
        restarts: Vec::new(),
        rounds: None,
    };
    let mut units: Vec<Vec<UnitTiming>> = (0..lanes)
        .map(|_| (0..configs).map(|_| UnitTiming::default()).collect())
        .collect();
    let mut interrupted = false;
    let mut samples = 0;
    let children = job.settings.processes.max(1);
    'sets: for k in 0..children {
        loop {
            let any = (0..lanes).any(|l| (0..configs).any(|c| state.standing(job, l, c, k)));
            if !any {
                break 'sets;
            }
            match run_set(job, k, &mut state, progress) {
                Ok((records, profiles)) => {
                    for p in profiles {
                        units[p.lane][p.config].profiles.push(p.profile);
                    }
                    samples += records.len();
                    for (lane, row) in estimate(job, k, &records, &state).into_iter().enumerate() {
                        for (c, p) in row.into_iter().enumerate() {
                            if let Some(p) = p {
                                units[lane][c].processes.push(p);
                            }
                        }
                    }
                    break;
                }
                Err(Stop::Restart) => continue,
                Err(Stop::Interrupted) => {
                    interrupted = true;
                    break 'sets;
                }
            }
        }
    }
    for (lane, row) in units.iter_mut().enumerate() {
        for (c, u) in row.iter_mut().enumerate() {
            u.failure = state.failures[lane][c].take();
            if u.failure.is_some() {
                u.processes.clear();
                u.profiles.clear();
            }
        }
    }
    let schedule = Schedule {
        id: super::placement::clock_seed() ^ job.settings.seed.rotate_left(17),
        seed: job.settings.seed,
        children,
        rounds: state.rounds.unwrap_or(0),
        sample_ms: job.settings.sample_ms,
        window: lockstep::WINDOW,
        placement: job.placement,
        builds: job.lanes.iter().map(|l| l.kind.name().into()).collect(),
        configs: job.configs.clone(),
        ops: state.ops,
        restarts: state.restarts,
        samples,
        seconds: started.elapsed().as_secs_f64(),
    };
    Timed {
        units,
        schedule,
        interrupted,
    }
}
