//! `serprof list`: studies and their configurations.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::model::Program;

pub(crate) fn run(program: &Program, json: bool) -> Result<ExitCode> {
    let configs = program.configs();
    let visible: Vec<_> = program.infos().into_iter().filter(|s| !s.hidden).collect();
    if json {
        let doc: Vec<_> = visible
            .iter()
            .map(|s| {
                let cs: Vec<_> = configs
                    .iter()
                    .filter(|c| c.info.study == s.name)
                    .map(|c| {
                        json!({
                            "name": c.info.name(), "engine": c.info.engine, "engine_version": c.info.engine_version, "call": c.info.call,
                            "format": c.info.format.as_str(), "operation": c.info.operation.as_str(),
                            "dataset": c.info.dataset.as_str(), "notes": c.info.notes,
                        })
                    })
                    .collect();
                json!({ "study": s.name, "title": s.title, "source": s.source, "baseline": s.baseline, "unavailable": s.unavailable, "configs": cs })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "studies": doc }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    for s in &visible {
        match s.source.is_empty() {
            true => println!("{}: {}", s.name, s.title),
            false => println!("{}: {} ({})", s.name, s.title, s.source),
        }
        for c in configs.iter().filter(|c| c.info.study == s.name) {
            let call = if c.info.call.is_empty() {
                String::new()
            } else {
                format!(" [{}]", c.info.call)
            };
            println!(
                "  {:<34} {:<6} {:<10} {} {}{call}  {}",
                c.info.name(),
                c.info.format.as_str(),
                c.info.operation.as_str(),
                c.info.engine,
                c.info.engine_version,
                c.info.notes
            );
        }
    }
    for s in visible.iter().filter(|s| s.unavailable.is_some()) {
        println!(
            "{}: unavailable: {}",
            s.name,
            s.unavailable.as_deref().unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}
