//! The Sample model of the reflection study: the `Sample` bean and its `Address` of the Korean
//! blog post "Jackson 직접 구현해보기 (JSON 직렬화기 구현)" ("Implementing Jackson ourselves: a
//! JSON serializer"): seven properties, one of them a nested object and one a list.
//!
//! Fields are declared in alphabetical order so that serde's derive writes them in the order
//! the article's reflective serializer does (it sorts property names).

use serde::{Deserialize, Serialize};

/// The blog post's `Sample` bean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Sample {
    /// Whether the account is active.
    pub active: bool,
    /// Where they live.
    pub address: SampleAddress,
    /// Their age in years.
    pub age: i32,
    /// Their email address.
    pub email: String,
    /// Their identifier.
    pub id: i64,
    /// Their name.
    pub name: String,
    /// Their roles.
    pub roles: Vec<String>,
}

/// A sample's address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SampleAddress {
    /// City.
    pub city: String,
    /// Postal code.
    pub zip_code: String,
}
