//! Typed models of the three standard documents of nativejson-benchmark, written from each
//! document's shape (which fields every object has, which are sometimes absent, which are
//! always null). Serialised, each gives back a value equal to its document: fields that some
//! objects lack are skipped when absent, fields that are always present are always written
//! (`null` included). A test (engines/tests/corpus_typed.rs) holds this for each document.
//!
//! Each type says which object of its document it models; their fields are that object's keys,
//! named and typed as the document has them, and documented only where the name does not say
//! (a field always null, a renamed key).

#![allow(missing_docs)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

// ---- twitter.json: a search result of 100 statuses, 73 of them retweets. ----

/// twitter.json: a search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Twitter {
    pub statuses: Vec<Status>,
    pub search_metadata: SearchMetadata,
}

/// The search's `search_metadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchMetadata {
    pub completed_in: f64,
    pub max_id: u64,
    pub max_id_str: String,
    pub next_results: String,
    pub query: String,
    pub refresh_url: String,
    pub count: u64,
    pub since_id: u64,
    pub since_id_str: String,
}

/// A status (a tweet), maybe a retweet of another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub metadata: StatusMetadata,
    pub created_at: String,
    pub id: u64,
    pub id_str: String,
    pub text: String,
    pub source: String,
    pub truncated: bool,
    pub in_reply_to_status_id: Option<u64>,
    pub in_reply_to_status_id_str: Option<String>,
    pub in_reply_to_user_id: Option<u64>,
    pub in_reply_to_user_id_str: Option<String>,
    pub in_reply_to_screen_name: Option<String>,
    pub user: User,
    /// Always null in the document.
    pub geo: Option<String>,
    /// Always null in the document.
    pub coordinates: Option<String>,
    /// Always null in the document.
    pub place: Option<String>,
    /// Always null in the document.
    pub contributors: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retweeted_status: Option<Box<Status>>,
    pub retweet_count: u64,
    pub favorite_count: u64,
    pub entities: StatusEntities,
    pub favorited: bool,
    pub retweeted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub possibly_sensitive: Option<bool>,
    pub lang: String,
}

/// A status's `metadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusMetadata {
    pub result_type: String,
    pub iso_language_code: String,
}

/// The user who posted a status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub id: u64,
    pub id_str: String,
    pub name: String,
    pub screen_name: String,
    pub location: String,
    pub description: String,
    pub url: Option<String>,
    pub entities: UserEntities,
    pub protected: bool,
    pub followers_count: u64,
    pub friends_count: u64,
    pub listed_count: u64,
    pub created_at: String,
    pub favourites_count: u64,
    pub utc_offset: Option<i64>,
    pub time_zone: Option<String>,
    pub geo_enabled: bool,
    pub verified: bool,
    pub statuses_count: u64,
    pub lang: String,
    pub contributors_enabled: bool,
    pub is_translator: bool,
    pub is_translation_enabled: bool,
    pub profile_background_color: String,
    pub profile_background_image_url: String,
    pub profile_background_image_url_https: String,
    pub profile_background_tile: bool,
    pub profile_image_url: String,
    pub profile_image_url_https: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_banner_url: Option<String>,
    pub profile_link_color: String,
    pub profile_sidebar_border_color: String,
    pub profile_sidebar_fill_color: String,
    pub profile_text_color: String,
    pub profile_use_background_image: bool,
    pub default_profile: bool,
    pub default_profile_image: bool,
    pub following: bool,
    pub follow_request_sent: bool,
    pub notifications: bool,
}

/// A user's `entities`: the URLs of their profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserEntities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<UrlList>,
    pub description: UrlList,
}

/// A list of URLs (`urls`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UrlList {
    pub urls: Vec<Url>,
}

/// A URL as a status or profile holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Url {
    pub url: String,
    pub expanded_url: String,
    pub display_url: String,
    pub indices: [u32; 2],
}

/// A status's `entities`: hashtags, URLs, mentions, media.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusEntities {
    pub hashtags: Vec<Hashtag>,
    /// Empty in every status of the document; typed like a hashtag (text and indices).
    pub symbols: Vec<Hashtag>,
    pub urls: Vec<Url>,
    pub user_mentions: Vec<UserMention>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<Vec<Media>>,
}

/// A hashtag of a status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hashtag {
    pub text: String,
    pub indices: [u32; 2],
}

/// A user mentioned in a status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMention {
    pub screen_name: String,
    pub name: String,
    pub id: u64,
    pub id_str: String,
    pub indices: [u32; 2],
}

/// A picture attached to a status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Media {
    pub id: u64,
    pub id_str: String,
    pub indices: [u32; 2],
    pub media_url: String,
    pub media_url_https: String,
    pub url: String,
    pub display_url: String,
    pub expanded_url: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub sizes: MediaSizes,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_status_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_status_id_str: Option<String>,
}

/// A picture's sizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MediaSizes {
    pub medium: MediaSize,
    pub small: MediaSize,
    pub thumb: MediaSize,
    pub large: MediaSize,
}

/// One size of a picture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MediaSize {
    pub w: u32,
    pub h: u32,
    pub resize: String,
}

// ---- citm_catalog.json: a ticketing catalogue, maps keyed by numeric ids. ----

/// Maps keyed by ids written as strings ("138586341"); a `BTreeMap` orders them, which a
/// serde_json `Value` ignores when it compares.
pub type IdMap<T> = BTreeMap<String, T>;

/// citm_catalog.json: a ticketing catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CitmCatalog {
    pub area_names: IdMap<String>,
    pub audience_sub_category_names: IdMap<String>,
    pub block_names: IdMap<String>,
    pub events: IdMap<Event>,
    pub performances: Vec<Performance>,
    pub seat_category_names: IdMap<String>,
    pub sub_topic_names: IdMap<String>,
    pub subject_names: IdMap<String>,
    pub topic_names: IdMap<String>,
    pub topic_sub_topics: IdMap<Vec<u64>>,
    pub venue_names: IdMap<String>,
}

/// An event of the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Always null in the document.
    pub description: Option<String>,
    pub id: u64,
    pub logo: Option<String>,
    pub name: String,
    pub sub_topic_ids: Vec<u64>,
    /// Always null in the document.
    pub subject_code: Option<String>,
    /// Always null in the document.
    pub subtitle: Option<String>,
    pub topic_ids: Vec<u64>,
}

/// A performance of an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Performance {
    pub event_id: u64,
    pub id: u64,
    pub logo: Option<String>,
    /// Always null in the document.
    pub name: Option<String>,
    pub prices: Vec<Price>,
    pub seat_categories: Vec<SeatCategory>,
    /// Always null in the document.
    pub seat_map_image: Option<String>,
    pub start: u64,
    pub venue_code: String,
}

/// A price of a seat category at a performance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    pub amount: u64,
    pub audience_sub_category_id: u64,
    pub seat_category_id: u64,
}

/// A seat category of a performance, and its areas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatCategory {
    pub areas: Vec<Area>,
    pub seat_category_id: u64,
}

/// An area of a seat category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Area {
    pub area_id: u64,
    /// Empty in every area of the document.
    pub block_ids: Vec<u64>,
}

// ---- canada.json: one GeoJSON feature, a polygon of 480 rings of coordinate pairs. ----

/// canada.json: one GeoJSON feature collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Canada {
    #[serde(rename = "type")]
    pub kind: String,
    pub features: Vec<Feature>,
}

/// The GeoJSON feature: Canada's outline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feature {
    #[serde(rename = "type")]
    pub kind: String,
    pub properties: Properties,
    pub geometry: Geometry,
}

/// The feature's properties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Properties {
    pub name: String,
}

/// The feature's polygon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Geometry {
    #[serde(rename = "type")]
    pub kind: String,
    /// Rings of (longitude, latitude) pairs.
    pub coordinates: Vec<Vec<[f64; 2]>>,
}

/// The standard documents that have a typed model, by their file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standard {
    /// `twitter.json`.
    Twitter,
    /// `citm_catalog.json`.
    Citm,
    /// `canada.json`.
    Canada,
}

impl Standard {
    /// The standard document a file name is, if any (`twitter.json`, `citm_catalog.json`,
    /// `canada.json`).
    pub fn of_file_name(name: &str) -> Option<Standard> {
        match name {
            "twitter.json" => Some(Standard::Twitter),
            "citm_catalog.json" => Some(Standard::Citm),
            "canada.json" => Some(Standard::Canada),
            _ => None,
        }
    }

    /// The Rust type of the model, for notes.
    pub fn type_name(self) -> &'static str {
        match self {
            Standard::Twitter => "Twitter",
            Standard::Citm => "CitmCatalog",
            Standard::Canada => "Canada",
        }
    }
}
