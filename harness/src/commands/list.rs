//! `serprof list`: studies and their configurations.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;
use serprof_engines::studies;

pub fn run(json: bool, corpus: &[PathBuf], corpus_max_mib: u64) -> Result<ExitCode> {
    let documents = super::run::corpus_documents(corpus, corpus_max_mib)?;
    let without_documents = documents.is_empty();
    crate::run::plan::register_documents(documents)?;
    let configs = studies::configs();
    let visible: Vec<_> = studies::studies()
        .into_iter()
        .filter(|s| !s.hidden)
        .collect();
    if json {
        let doc: Vec<_> = visible
            .iter()
            .map(|s| {
                let cs: Vec<_> = configs
                    .iter()
                    .filter(|c| c.info.study == s.name)
                    .map(|c| {
                        json!({
                            "name": c.info.name(), "engine": c.info.engine, "engine_version": c.info.engine_version,
                            "format": c.info.format.as_str(), "operation": c.info.operation.as_str(),
                            "dataset": c.info.dataset.as_str(), "notes": c.info.notes,
                        })
                    })
                    .collect();
                json!({ "study": s.name, "title": s.title, "source": s.source, "baseline": s.baseline, "configs": cs })
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
            println!(
                "  {:<34} {:<6} {:<10} {} {}  {}",
                c.info.name(),
                c.info.format.as_str(),
                c.info.operation.as_str(),
                c.info.engine,
                c.info.engine_version,
                c.info.notes
            );
        }
    }
    if without_documents && studies::corpus::offered() {
        println!(
            "{}: configurations per document; give --corpus PATH to list them",
            studies::corpus::name()
        );
    }
    Ok(ExitCode::SUCCESS)
}
