//! Pictures and tables derived from the records: flame graphs and text tables.

pub mod flame;
pub mod report;
pub mod table;
