//! Pictures and tables derived from the records: flame graphs and text tables.

pub(crate) mod allocators;
pub(crate) mod before_after;
pub(crate) mod charts;
pub(crate) mod corpus_table;
pub(crate) mod corrupt_table;
pub(crate) mod fields;
pub(crate) mod flame;
pub(crate) mod functions_diff;
pub(crate) mod functions_table;
pub(crate) mod numbers;
pub(crate) mod recording;
pub(crate) mod report;
pub(crate) mod report_data;
pub(crate) mod report_fields;
pub(crate) mod report_page;
pub(crate) mod report_table;
pub(crate) mod speedscope;
pub(crate) mod summary;
pub(crate) mod table;
pub(crate) mod tree;
pub(crate) mod views_page;
