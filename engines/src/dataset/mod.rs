//! The generated datasets: the Order dataset, value for value the one of
//! `ej-technologies/serialization-comparison` (`DatasetGenerator`, seed 42), and the Sample list.

pub mod java_random;
pub mod orders;
pub mod samples;

/// The name of the Order dataset in configurations (`ConfigInfo::dataset`).
pub const ORDERS: &str = "orders";

pub use java_random::JavaRandom;
pub use orders::{order_dataset, orders, OrderDataset, ORDER_COUNT};
pub use samples::{fixed_sample, sample_list, samples, SAMPLE_COUNT};
