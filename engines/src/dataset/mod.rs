//! The generated datasets: the Order dataset, value for value the one of
//! `ej-technologies/serialization-comparison` (`DatasetGenerator`, seed 42), the Sample list, and
//! rust_serialization_benchmark's four datasets ([`rsb`]).

pub mod java_random;
pub mod orders;
pub mod rsb;
pub mod samples;

/// The name of the Order dataset in configurations (`ConfigInfo::dataset`).
pub const ORDERS: &str = "orders";

pub use java_random::JavaRandom;
pub use orders::{order_dataset, orders, OrderDataset, ORDER_COUNT};
pub use samples::{fixed_sample, sample_list, samples, SAMPLE_COUNT};
