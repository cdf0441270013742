//! A reader for callgrind output files (`callgrind.out.<pid>`, format version 1 as written by
//! valgrind 3.19's callgrind) and the views an "instructions" recording needs: total cost, per
//! function self and inclusive cost, per source line self cost, and folded stacks for a flame
//! graph.
//!
//! Std only. Parse with [`Profile::parse`] or [`Profile::from_path`]. The files:
//!
//! - `profile.rs`: the tables of a parsed file ([`Profile`], [`Function`], [`Call`],
//!   [`LineCost`]) and the queries on them (totals, rankings, callers and callees);
//! - `parse.rs`: the reader of the file format (what the file holds, and how it is read);
//! - `tables.rs`: building the tables, and the figures derived from them (inclusive costs,
//!   calls in, cycles);
//! - `context.rs`: callgrind's function contexts (`f'2`, `g'f'e`): [`base_name`],
//!   [`strip_callers`], [`Profile::merge_contexts`];
//! - `pattern.rs`: valgrind's function name patterns ([`valgrind_pattern_matches`],
//!   [`Profile::find`]);
//! - `fold.rs`: folded stacks from the caller -> callee graph ([`Profile::folded`]);
//! - `lines.rs`: per-line costs ([`Profile::hottest_lines`]);
//! - `events.rs`: the simulated events as serprof names them ([`Event`]), and columns that sum
//!   several of callgrind's ([`Profile::derive_event`]).

mod context;
mod events;
mod fold;
mod lines;
mod parse;
mod pattern;
mod profile;
mod tables;

pub(crate) use context::base_name;
pub(crate) use events::Event;
pub(crate) use fold::FoldOptions;
pub(crate) use profile::Profile;

#[cfg(test)]
mod test_data;
