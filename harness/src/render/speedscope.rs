//! A profile in speedscope's file format (<https://www.speedscope.app/file-format-schema.json>):
//! one `sampled` profile whose samples are the folded stacks (root first, the configuration's
//! name left out) weighted by their counts, and the frames with their source files from the
//! side table. speedscope, the web viewer many profilers export to, opens it as it is.

use std::collections::HashMap;

use serde::Serialize;

use crate::profile::folded::Folded;
use crate::profile::sources::Sources;

pub(crate) const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

#[derive(Debug, Serialize)]
struct Frame<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SpeedscopeProfile<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    unit: &'static str,
    start_value: u64,
    end_value: u64,
    samples: Vec<Vec<usize>>,
    weights: Vec<u64>,
}

#[derive(Debug, Serialize)]
struct Shared<'a> {
    frames: Vec<Frame<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct File<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    shared: Shared<'a>,
    profiles: Vec<SpeedscopeProfile<'a>>,
    name: &'a str,
    active_profile_index: usize,
    exporter: String,
}

/// The unit of a profile's weights, as speedscope names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WeightUnit {
    /// Counts without a unit: samples, instructions.
    None,
    Bytes,
}

/// The speedscope document of `folded`, named `name`.
pub(crate) fn speedscope_json(
    folded: &Folded,
    sources: &Sources,
    name: &str,
    unit: WeightUnit,
) -> Vec<u8> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut frames = Vec::new();
    let mut samples = Vec::new();
    let mut weights = Vec::new();
    for (stack, &count) in &folded.stacks {
        let ids: Vec<usize> = stack
            .split(';')
            .skip(1)
            .map(|f| {
                *index.entry(f).or_insert_with(|| {
                    frames.push(Frame {
                        name: f,
                        file: sources.get(f).and_then(|s| s.file.as_deref()),
                    });
                    frames.len() - 1
                })
            })
            .collect();
        samples.push(ids);
        weights.push(count);
    }
    let total = folded.total();
    let file = File {
        schema: SCHEMA,
        shared: Shared { frames },
        profiles: vec![SpeedscopeProfile {
            kind: "sampled",
            name,
            unit: match unit {
                WeightUnit::None => "none",
                WeightUnit::Bytes => "bytes",
            },
            start_value: 0,
            end_value: total,
            samples,
            weights,
        }],
        name,
        active_profile_index: 0,
        exporter: format!("serprof {}", env!("CARGO_PKG_VERSION")),
    };
    serde_json::to_vec(&file).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_become_weighted_samples_of_shared_frames() {
        let folded = Folded::parse("cfg;main;a 3\ncfg;main;b;a 2\n").unwrap();
        let mut sources = Sources::default();
        sources.note("a", Some("/src/a.rs"), None);
        let doc: serde_json::Value = serde_json::from_slice(&speedscope_json(
            &folded,
            &sources,
            "cfg (cpu)",
            WeightUnit::None,
        ))
        .unwrap();
        assert_eq!(doc["$schema"], SCHEMA);
        let frames: Vec<&str> = doc["shared"]["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(frames, ["main", "a", "b"]);
        assert_eq!(doc["shared"]["frames"][1]["file"], "/src/a.rs");
        let p = &doc["profiles"][0];
        assert_eq!(p["type"], "sampled");
        assert_eq!(p["samples"], serde_json::json!([[0, 1], [0, 2, 1]]));
        assert_eq!(p["weights"], serde_json::json!([3, 2]));
        assert_eq!(
            (p["startValue"].as_u64(), p["endValue"].as_u64()),
            (Some(0), Some(5))
        );
    }
}
