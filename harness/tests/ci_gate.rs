//! The CI recipe works as copied. This test reads `docs/ci/serprof.yml` and runs its steps as
//! the file spells them, in the layout its checkouts make: a scratch workspace holding the
//! crate's checkout (a git repository at the first checkout's `path:`) and serprof's (this
//! workspace, at the second's `path:`), the crate depending on serprof-bench by the `path =`
//! that `docs/guide/your-crate.md` tells the user to write. The `uses:` steps are emulated by
//! that layout (checkout), checked (the driver's cache key names serprof's commit; the artifact
//! folder exists) or both; the tool set-up steps (rustup, apt-get) are skipped with the tools
//! present; every other `run:` step runs with `bash -e` in its `working-directory:`, its
//! `${{ }}` expressions substituted, and the test's `serprof` as the installed driver. On three
//! scratch pull requests against one base (`origin/main`):
//!
//! - a commit that changes no code (a comment): the workflow passes;
//! - a commit that makes the crate's own serialize code do more work per value: the gate step
//!   fails naming the row's instructions;
//! - a commit that makes and drops one `Box` per value serialized: the gate step fails naming
//!   the row's allocations, which grew by exactly one per operation.
//!
//! Checkout paths in the yml that disagree with the docs' `path =` fail it: the crate or its
//! base does not build. Needs git, cargo and valgrind; without valgrind the test says so and
//! passes, except in CI.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use serde_json::Value;

mod common;
use common::{git, have_valgrind, workspace, write_crate};

const MAIN: &str = r#"use serde::{Deserialize, Serialize};
use serprof::{Operation, Study};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub name: String,
    pub x: u64,
    pub y: u64,
}

fn points() -> Vec<Point> {
    (0..50u64).map(|i| Point { name: format!("p{i}"), x: i, y: i * i }).collect()
}

fn studies() -> Vec<Study> {
    vec![Study::new("points", "Which engine for points?")
        .dataset(points)
        .operations([Operation::Serialize])
        .engines(serprof::engines::serde())
        .into()]
}

serprof::main!(studies);
"#;

/// The row the pull requests change (one operation: the engine's name).
const ROW: &str = "points/serde_json";

/// The slowdown: a `serialize_with` on `x` that spins before writing it.
const SLOW: &str = r#"
fn with_x<S: serde::Serializer>(x: &u64, s: S) -> Result<S::Ok, S::Error> {
    let mut h = *x;
    for i in 0..std::hint::black_box(2_000u64) {
        h = h.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    s.serialize_u64(*x ^ (h & std::hint::black_box(0)))
}
"#;

/// One heap allocation per value and almost no instructions: a `Box` made and dropped.
const ALLOCATES: &str = r#"
fn with_x<S: serde::Serializer>(x: &u64, s: S) -> Result<S::Ok, S::Error> {
    let boxed = std::hint::black_box(Box::new(*x));
    s.serialize_u64(*boxed)
}
"#;

// ---- A reader of the workflow's YAML: block mappings, block sequences of mappings, plain,
// quoted and `|` block scalars, comments: what a workflow file uses.

#[derive(Debug, Clone)]
enum Yaml {
    Str(String),
    Map(Vec<(String, Yaml)>),
    List(Vec<Yaml>),
}

impl Yaml {
    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Yaml::Str(s)) => Some(s),
            _ => None,
        }
    }
}

struct Reader {
    lines: Vec<String>,
    at: usize,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn meaningful(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// A plain or quoted scalar, its comment removed.
fn scalar(text: &str) -> String {
    let t = text.trim();
    for q in ['"', '\''] {
        if let Some(rest) = t.strip_prefix(q) {
            let end = rest.find(q).expect("a closing quote in the workflow");
            return rest[..end].to_string();
        }
    }
    match t.find(" #") {
        Some(i) => t[..i].trim_end().to_string(),
        None => t.to_string(),
    }
}

impl Reader {
    fn new(text: &str) -> Reader {
        Reader {
            lines: text.lines().map(str::to_string).collect(),
            at: 0,
        }
    }

    /// The indentation of the next meaningful line, skipping blank and comment lines.
    fn peek(&mut self) -> Option<usize> {
        while self.at < self.lines.len() && !meaningful(&self.lines[self.at]) {
            self.at += 1;
        }
        self.lines.get(self.at).map(|l| indent(l))
    }

    fn node(&mut self, at: usize) -> Yaml {
        if self.lines[self.at].trim_start().starts_with("- ") {
            let mut items = Vec::new();
            while self.peek() == Some(at) && self.lines[self.at].trim_start().starts_with("- ") {
                // The item's first key, moved to where its other keys are.
                let line = &self.lines[self.at];
                self.lines[self.at] = format!("{}{}", " ".repeat(at + 2), &line[at + 2..]);
                items.push(self.node(at + 2));
            }
            return Yaml::List(items);
        }
        let mut map = Vec::new();
        while self.peek() == Some(at) && !self.lines[self.at].trim_start().starts_with("- ") {
            let line = self.lines[self.at].trim().to_string();
            self.at += 1;
            let (key, value) = match line.split_once(": ") {
                Some((k, v)) => (k.to_string(), v.trim().to_string()),
                None => (
                    line.strip_suffix(':')
                        .unwrap_or_else(|| panic!("not `key: value` in the workflow: {line}"))
                        .to_string(),
                    String::new(),
                ),
            };
            let value = if value.starts_with('|') {
                self.block(at)
            } else if value.is_empty() || value.starts_with('#') {
                match self.peek() {
                    Some(i) if i > at => self.node(i),
                    Some(i) if i == at && self.lines[self.at].trim_start().starts_with("- ") => {
                        self.node(i)
                    }
                    _ => Yaml::Str(String::new()),
                }
            } else {
                Yaml::Str(scalar(&value))
            };
            map.push((key, value));
        }
        Yaml::Map(map)
    }

    /// A `|` block scalar under a key indented `at`: its lines, less their common indentation.
    fn block(&mut self, at: usize) -> Yaml {
        let mut text = Vec::new();
        let mut strip = None;
        while let Some(line) = self.lines.get(self.at) {
            if !line.trim().is_empty() && indent(line) <= at {
                break;
            }
            let cut = *strip.get_or_insert(indent(line));
            text.push(line.get(cut..).unwrap_or("").to_string());
            self.at += 1;
        }
        while text.last().is_some_and(|l| l.is_empty()) {
            text.pop();
        }
        Yaml::Str(text.join("\n") + "\n")
    }
}

fn parse(text: &str) -> Yaml {
    let mut r = Reader::new(text);
    let at = r.peek().expect("a workflow with content");
    r.node(at)
}

/// One step of the workflow.
#[derive(Debug)]
struct Step {
    name: String,
    uses: Option<String>,
    id: Option<String>,
    run: Option<String>,
    working_directory: Option<String>,
    condition: Option<String>,
    with: BTreeMap<String, String>,
}

/// The steps of the workflow's one job.
fn steps(doc: &Yaml) -> Vec<Step> {
    let Some(Yaml::Map(jobs)) = doc.get("jobs") else {
        panic!("the workflow has no jobs: {doc:?}")
    };
    assert_eq!(jobs.len(), 1, "one job: {jobs:?}");
    let Some(Yaml::List(list)) = jobs[0].1.get("steps") else {
        panic!("the job has no steps")
    };
    list.iter()
        .map(|s| {
            let with = match s.get("with") {
                Some(Yaml::Map(m)) => m
                    .iter()
                    .map(|(k, v)| match v {
                        Yaml::Str(v) => (k.clone(), v.clone()),
                        _ => panic!("with: {k} is not a string"),
                    })
                    .collect(),
                _ => BTreeMap::new(),
            };
            let text = |k: &str| s.str(k).map(str::to_string);
            Step {
                name: text("name")
                    .or_else(|| text("uses"))
                    .unwrap_or_else(|| "a step".into()),
                uses: text("uses"),
                id: text("id"),
                run: text("run"),
                working_directory: text("working-directory"),
                condition: text("if"),
                with,
            }
        })
        .collect()
}

/// `text` with every `${{ EXPR }}` that `value` knows replaced; the ones it does not know.
fn substitute(text: &str, value: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let (mut out, mut unknown, mut rest) = (String::new(), Vec::new(), text);
    while let Some(start) = rest.find("${{") {
        let end = start
            + rest[start..]
                .find("}}")
                .expect("a closing }} in the workflow")
            + 2;
        let expr = rest[start + 3..end - 2].trim();
        out.push_str(&rest[..start]);
        match value(expr) {
            Some(v) => out.push_str(&v),
            None => {
                unknown.push(expr.to_string());
                out.push_str(&rest[start..end]);
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    (out, unknown)
}

/// A step that only installs the tools (rustup, apt-get): skipped, the tools being present.
fn installs_tools(run: &str) -> bool {
    run.lines().filter(|l| meaningful(l)).all(|l| {
        let l = l.trim();
        l.starts_with("rustup ") || l.starts_with("sudo apt-get ") || l.starts_with("apt-get ")
    })
}

/// The scratch workspace as the workflow's checkouts make it.
struct Layout {
    /// `$GITHUB_WORKSPACE`.
    workspace: PathBuf,
    /// The crate's checkout.
    krate: PathBuf,
    /// serprof's checkout (this workspace).
    serprof: PathBuf,
    steps: Vec<Step>,
}

/// The `path = "..."` of serprof-bench that docs/guide/your-crate.md tells the user to write.
fn documented_path() -> String {
    let page = std::fs::read_to_string(workspace().join("docs/guide/your-crate.md")).unwrap();
    let line = page
        .lines()
        .find(|l| l.starts_with("serprof = ") && l.contains("serprof-bench"))
        .expect("your-crate.md has the serprof = { package = \"serprof-bench\", ... } line");
    let from = line.find("path = \"").expect("a path = in that line") + "path = \"".len();
    let len = line[from..].find('"').unwrap();
    line[from..from + len].to_string()
}

/// Lays out the workflow's checkouts under `scratch`: the crate (committed as the base, which
/// `origin/main` names) and serprof.
fn lay_out(scratch: &Path) -> Layout {
    let text = std::fs::read_to_string(workspace().join("docs/ci/serprof.yml")).unwrap();
    let steps = steps(&parse(&text));
    let checkouts: Vec<&Step> = steps
        .iter()
        .filter(|s| {
            s.uses
                .as_deref()
                .is_some_and(|u| u.starts_with("actions/checkout@"))
        })
        .collect();
    assert_eq!(checkouts.len(), 2, "the crate's and serprof's: {steps:?}");
    let (ours, theirs): (Vec<&Step>, Vec<&Step>) = checkouts
        .into_iter()
        .partition(|s| !s.with.contains_key("repository"));
    let (ours, theirs) = (ours[0], theirs[0]);
    assert_eq!(
        ours.with.get("fetch-depth").map(String::as_str),
        Some("0"),
        "the crate's checkout fetches the base revision too"
    );
    let at = |s: &Step| s.with.get("path").map_or(".", String::as_str).to_string();
    let ws = scratch.join("workspace");
    let krate = ws.join(at(ours));
    let serprof = ws.join(at(theirs));

    std::fs::create_dir_all(serprof.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(workspace(), &serprof).unwrap();
    let flags = std::fs::read_to_string(workspace().join(".cargo/config.toml")).unwrap();
    write_crate(
        &krate,
        "gated",
        &format!(
            "serprof = {{ package = \"serprof-bench\", path = \"{}\", default-features = false }}\n\
             serde = {{ version = \"1\", features = [\"derive\"] }}\n",
            documented_path()
        ),
        &flags,
    );
    std::fs::write(krate.join("src/main.rs"), MAIN).unwrap();
    std::fs::write(krate.join(".gitignore"), "/target\n/snapshots\n/ci-gate\n").unwrap();
    // The lock file as cargo writes it for this crate (the workspace's, pruned), as a crate's
    // repository holds it: else every build of a fresh checkout would write it again.
    let o = StdCommand::new("cargo")
        .args(["tree", "--offline", "--edges", "normal"])
        .current_dir(&krate)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "the crate's dependencies do not resolve in the workflow's layout (the crate at {}, serprof at {}, path = \"{}\" from your-crate.md): {}",
        krate.display(),
        serprof.display(),
        documented_path(),
        String::from_utf8_lossy(&o.stderr)
    );
    git(&krate, &["init", "-q"]);
    // The crate's files only: a checkout of serprof inside the crate's (a layout that
    // disagrees with the docs) is not the crate's.
    git(
        &krate,
        &[
            "add",
            "Cargo.toml",
            "Cargo.lock",
            ".cargo",
            ".gitignore",
            "src",
        ],
    );
    git(&krate, &["commit", "-qm", "points"]);
    git(&krate, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    Layout {
        workspace: ws,
        krate,
        serprof,
        steps,
    }
}

/// How the workflow went on one pull request.
struct Outcome {
    /// The step that failed, if one did.
    failed: Option<String>,
    /// Every step's output.
    text: String,
}

impl Layout {
    /// A pull request against `origin/main`: the base with `main_rs` committed on it.
    fn pull_request(&self, main_rs: &str, what: &str) {
        git(&self.krate, &["checkout", "-q", "--detach", "origin/main"]);
        std::fs::write(self.krate.join("src/main.rs"), main_rs).unwrap();
        git(&self.krate, &["commit", "-qam", what]);
    }

    /// The workflow's steps, in order, as GitHub Actions runs them: after a failure only the
    /// `if: always()` steps.
    fn run(&self) -> Outcome {
        let driver = Path::new(env!("CARGO_BIN_EXE_serprof")).parent().unwrap();
        let mut dirs = vec![driver.to_path_buf()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let path = std::env::join_paths(dirs).unwrap();
        let commit = git(&self.serprof, &["rev-parse", "HEAD"]);
        let mut outputs: BTreeMap<String, String> = BTreeMap::new();
        let (mut failed, mut text) = (None, String::new());
        for step in &self.steps {
            match step.condition.as_deref() {
                None if failed.is_some() => continue,
                None | Some("always()") => {}
                Some(other) => panic!("{}: the test knows no `if: {other}`", step.name),
            }
            let value = |expr: &str| -> Option<String> {
                match expr {
                    "github.base_ref" => Some("main".into()),
                    "runner.os" => Some("Linux".into()),
                    _ => outputs.get(expr).cloned(),
                }
            };
            if let Some(uses) = &step.uses {
                let action = uses.split('@').next().unwrap();
                match action {
                    "actions/checkout" => {} // the layout
                    "actions/cache" => {
                        let paths = &step.with["path"];
                        if paths.lines().any(|p| p.trim() == "~/.cargo/bin/serprof") {
                            let (key, _) = substitute(&step.with["key"], &value);
                            assert!(
                                key.contains(&commit),
                                "the driver's cache key {key} names serprof's commit {commit}"
                            );
                        }
                    }
                    "actions/upload-artifact" => {
                        let (kept, unknown) = substitute(&step.with["path"], &value);
                        assert!(unknown.is_empty(), "{}: {unknown:?}", step.name);
                        let kept = self.workspace.join(kept.trim());
                        assert!(kept.is_dir(), "{}: {} is kept", step.name, kept.display());
                    }
                    _ => panic!("{}: the test emulates no {action}", step.name),
                }
                continue;
            }
            let run = step.run.as_deref().expect("a step either uses or runs");
            if installs_tools(run) {
                continue;
            }
            let (script, unknown) = substitute(run, &value);
            assert!(unknown.is_empty(), "{}: {unknown:?}", step.name);
            let dir = self
                .workspace
                .join(step.working_directory.as_deref().unwrap_or("."));
            let github_output = self.workspace.join("../github-output");
            std::fs::write(&github_output, "").unwrap();
            let started = std::time::Instant::now();
            let out = StdCommand::new("bash")
                .args(["--noprofile", "--norc", "-e", "-c", &script])
                .current_dir(&dir)
                .env("PATH", &path)
                .env("GITHUB_WORKSPACE", &self.workspace)
                .env("GITHUB_OUTPUT", &github_output)
                .env("CARGO_TARGET_DIR", workspace().join("target"))
                .output()
                .unwrap();
            eprintln!(
                "ci_gate: {}: exit {:?} after {:.0?}",
                step.name,
                out.status.code(),
                started.elapsed()
            );
            text += &format!(
                "--- {} (exit {:?})\n{}{}",
                step.name,
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            if let Some(id) = &step.id {
                for line in std::fs::read_to_string(&github_output).unwrap().lines() {
                    if let Some((k, v)) = line.split_once('=') {
                        outputs.insert(format!("steps.{id}.outputs.{k}"), v.to_string());
                    }
                }
            }
            if !out.status.success() && failed.is_none() {
                failed = Some(step.name.clone());
            }
        }
        Outcome { failed, text }
    }

    /// The gate's `check.json`.
    fn check(&self) -> Value {
        let file = self.krate.join("ci-gate/check.json");
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap()
    }
}

/// The regression of `metric` on the row, from `check.json`.
fn regression<'a>(check: &'a Value, metric: &str) -> Option<&'a Value> {
    check["regressions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["config"] == ROW && r["metric"] == metric)
}

#[test]
fn the_workflow_as_copied_passes_a_no_op_and_fails_a_slowdown_and_an_allocation() {
    if !have_valgrind() {
        return;
    }
    // At one path from run to run (one per checkout of serprof), so that the builds of
    // serprof's crates, whose path is part of their identity, stay fresh between runs as a CI
    // cache of `target` keeps them; outside serprof's checkout, where the driver would measure
    // its own studies.
    let checkout = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        workspace().hash(&mut h);
        h.finish()
    };
    let scratch = std::env::temp_dir().join(format!("serprof-ci-gate-{checkout:016x}"));
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).unwrap();
    }
    let layout = lay_out(&scratch);

    layout.pull_request(&format!("// a comment\n{MAIN}"), "a comment");
    let o = layout.run();
    assert_eq!(o.failed, None, "a no-op passes: {}", o.text);
    let check = layout.check();
    assert_eq!(check["passed"], true);
    // Every gated metric is compared on both sides: none absent, none unmeasured.
    assert_eq!(check["absent"], serde_json::json!([]), "{check}");
    assert_eq!(check["unmeasured"], serde_json::json!([]), "{check}");
    let metrics: Vec<&str> = check["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    for m in [
        "instructions",
        "allocations",
        "bytes-allocated",
        "payload-bytes",
    ] {
        assert!(metrics.contains(&m), "{m} is gated: {check}");
    }

    let with_x = |body: &str| {
        format!("{MAIN}{body}").replace(
            "    pub x: u64,",
            "    #[serde(serialize_with = \"with_x\")]\n    pub x: u64,",
        )
    };
    let gate_step = |o: &Outcome| {
        let failed = o.failed.clone().unwrap_or_default();
        let step = layout.steps.iter().find(|s| s.name == failed);
        assert!(
            step.and_then(|s| s.run.as_deref())
                .is_some_and(|r| r.contains("scripts/ci-gate")),
            "the gate step fails: {}",
            o.text
        );
    };

    layout.pull_request(&with_x(SLOW), "slower x");
    let o = layout.run();
    gate_step(&o);
    assert!(
        o.text.contains(&format!("regression: {ROW} instructions")),
        "{}",
        o.text
    );
    // check's text speaks its own words.
    assert!(
        o.text.contains("%  regression") && !o.text.contains("Regression"),
        "{}",
        o.text
    );
    let check = layout.check();
    assert_eq!(check["passed"], false);
    assert!(regression(&check, "instructions").is_some(), "{check}");
    let out = layout.krate.join("ci-gate");
    assert!(out.join("bmf.json").is_file());
    assert!(
        out.join("base/latest/run.json").is_file() && out.join("head/latest/run.json").is_file()
    );

    layout.pull_request(&with_x(ALLOCATES), "a box per x");
    let o = layout.run();
    gate_step(&o);
    assert!(
        o.text.contains(&format!("regression: {ROW} allocations")),
        "{}",
        o.text
    );
    let check = layout.check();
    let allocations = regression(&check, "allocations").expect("allocations regress");
    // Exact counts: one allocation more per operation.
    let grew = allocations["current"].as_f64().unwrap() - allocations["baseline"].as_f64().unwrap();
    assert_eq!(grew, 1.0, "{check}");
    assert!(regression(&check, "bytes-allocated").is_some(), "{check}");
    std::fs::remove_dir_all(&scratch).unwrap();
}
