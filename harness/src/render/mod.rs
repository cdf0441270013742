//! Pictures and tables derived from the records: flame graphs and text tables.

pub mod before_after;
pub mod charts;
pub mod corpus_table;
pub mod corrupt_table;
pub mod flame;
pub mod pprof;
pub mod report;
pub mod report_data;
pub mod report_page;
pub mod report_table;
pub mod speedscope;
pub mod table;
pub mod tree;
pub mod views_page;
