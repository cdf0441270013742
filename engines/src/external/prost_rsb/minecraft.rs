//! rsb's `minecraft_savedata` as Protobuf messages (its `minecraft_savedata.proto`).

use super::{required, FourU32Message, Messages, Vector2fMessage};

/// A game mode (rsb's `GameType`), written as its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum GameTypeMessage {
    /// Survival.
    Survival = 0,
    /// Creative.
    Creative = 1,
    /// Adventure.
    Adventure = 2,
    /// Spectator.
    Spectator = 3,
}

/// An inventory item (rsb's `Item`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ItemMessage {
    /// How many.
    #[prost(int32, tag = "1")]
    pub count: i32,
    /// The slot.
    #[prost(uint32, tag = "2")]
    pub slot: u32,
    /// The item's name.
    #[prost(string, tag = "3")]
    pub id: String,
}

/// A player's abilities (rsb's `Abilities`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct AbilitiesMessage {
    /// Walking speed.
    #[prost(float, tag = "1")]
    pub walk_speed: f32,
    /// Flying speed.
    #[prost(float, tag = "2")]
    pub fly_speed: f32,
    /// May fly.
    #[prost(bool, tag = "3")]
    pub may_fly: bool,
    /// Flies.
    #[prost(bool, tag = "4")]
    pub flying: bool,
    /// Cannot be hurt.
    #[prost(bool, tag = "5")]
    pub invulnerable: bool,
    /// May build.
    #[prost(bool, tag = "6")]
    pub may_build: bool,
    /// Builds at once.
    #[prost(bool, tag = "7")]
    pub instabuild: bool,
}

/// Three `f64`s (rsb's `Vector3d`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Vector3dMessage {
    /// x.
    #[prost(double, tag = "1")]
    pub x: f64,
    /// y.
    #[prost(double, tag = "2")]
    pub y: f64,
    /// z.
    #[prost(double, tag = "3")]
    pub z: f64,
}

/// An entity (rsb's `Entity`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct EntityMessage {
    /// Its kind.
    #[prost(string, tag = "1")]
    pub id: String,
    /// Where it is.
    #[prost(message, optional, tag = "2")]
    pub pos: Option<Vector3dMessage>,
    /// How it moves.
    #[prost(message, optional, tag = "3")]
    pub motion: Option<Vector3dMessage>,
    /// Where it looks.
    #[prost(message, optional, tag = "4")]
    pub rotation: Option<Vector2fMessage>,
    /// How far it has fallen.
    #[prost(float, tag = "5")]
    pub fall_distance: f32,
    /// Ticks on fire.
    #[prost(uint32, tag = "6")]
    pub fire: u32,
    /// Air left.
    #[prost(uint32, tag = "7")]
    pub air: u32,
    /// On the ground.
    #[prost(bool, tag = "8")]
    pub on_ground: bool,
    /// Not pulled down.
    #[prost(bool, tag = "9")]
    pub no_gravity: bool,
    /// Cannot be hurt.
    #[prost(bool, tag = "10")]
    pub invulnerable: bool,
    /// Ticks before a portal works.
    #[prost(int32, tag = "11")]
    pub portal_cooldown: i32,
    /// Its id.
    #[prost(message, optional, tag = "12")]
    pub uuid: Option<FourU32Message>,
    /// Its name, when it has one.
    #[prost(string, optional, tag = "13")]
    pub custom_name: Option<String>,
    /// Whether the name shows.
    #[prost(bool, tag = "14")]
    pub custom_name_visible: bool,
    /// Makes no sound.
    #[prost(bool, tag = "15")]
    pub silent: bool,
    /// Glows.
    #[prost(bool, tag = "16")]
    pub glowing: bool,
}

/// The recipes a player knows (rsb's `RecipeBook`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RecipeBookMessage {
    /// Known recipes.
    #[prost(string, repeated, tag = "1")]
    pub recipes: Vec<String>,
    /// Recipes to show.
    #[prost(string, repeated, tag = "2")]
    pub to_be_displayed: Vec<String>,
    /// The book's settings, eight flags.
    #[prost(bool, tag = "3")]
    pub is_filtering_craftable: bool,
    /// See above.
    #[prost(bool, tag = "4")]
    pub is_gui_open: bool,
    /// See above.
    #[prost(bool, tag = "5")]
    pub is_furnace_filtering_craftable: bool,
    /// See above.
    #[prost(bool, tag = "6")]
    pub is_furnace_gui_open: bool,
    /// See above.
    #[prost(bool, tag = "7")]
    pub is_blasting_furnace_filtering_craftable: bool,
    /// See above.
    #[prost(bool, tag = "8")]
    pub is_blasting_furnace_gui_open: bool,
    /// See above.
    #[prost(bool, tag = "9")]
    pub is_smoker_filtering_craftable: bool,
    /// See above.
    #[prost(bool, tag = "10")]
    pub is_smoker_gui_open: bool,
}

/// What a player rides (rsb's `Vehicle`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct VehicleMessage {
    /// Its id.
    #[prost(message, optional, tag = "1")]
    pub uuid: Option<FourU32Message>,
    /// The entity.
    #[prost(message, optional, tag = "2")]
    pub entity: Option<EntityMessage>,
}

/// A player (rsb's `Player`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PlayerMessage {
    /// Game mode.
    #[prost(enumeration = "GameTypeMessage", tag = "1")]
    pub game_type: i32,
    /// The game mode before.
    #[prost(enumeration = "GameTypeMessage", tag = "2")]
    pub previous_game_type: i32,
    /// Score.
    #[prost(int64, tag = "3")]
    pub score: i64,
    /// The dimension.
    #[prost(string, tag = "4")]
    pub dimension: String,
    /// The slot in hand.
    #[prost(uint32, tag = "5")]
    pub selected_item_slot: u32,
    /// The item in hand.
    #[prost(message, optional, tag = "6")]
    pub selected_item: Option<ItemMessage>,
    /// Where it spawns, when set.
    #[prost(string, optional, tag = "7")]
    pub spawn_dimension: Option<String>,
    /// Spawn x.
    #[prost(int64, tag = "8")]
    pub spawn_x: i64,
    /// Spawn y.
    #[prost(int64, tag = "9")]
    pub spawn_y: i64,
    /// Spawn z.
    #[prost(int64, tag = "10")]
    pub spawn_z: i64,
    /// Whether the spawn point is forced, when set.
    #[prost(bool, optional, tag = "11")]
    pub spawn_forced: Option<bool>,
    /// Sleep ticks.
    #[prost(uint32, tag = "12")]
    pub sleep_timer: u32,
    /// Food exhaustion.
    #[prost(float, tag = "13")]
    pub food_exhaustion_level: f32,
    /// Food saturation.
    #[prost(float, tag = "14")]
    pub food_saturation_level: f32,
    /// Food ticks.
    #[prost(uint32, tag = "15")]
    pub food_tick_timer: u32,
    /// Experience level.
    #[prost(uint32, tag = "16")]
    pub xp_level: u32,
    /// Progress to the next level.
    #[prost(float, tag = "17")]
    pub xp_p: f32,
    /// Experience in all.
    #[prost(int32, tag = "18")]
    pub xp_total: i32,
    /// Experience seed.
    #[prost(int32, tag = "19")]
    pub xp_seed: i32,
    /// The inventory.
    #[prost(message, repeated, tag = "20")]
    pub inventory: Vec<ItemMessage>,
    /// The ender chest.
    #[prost(message, repeated, tag = "21")]
    pub ender_items: Vec<ItemMessage>,
    /// Abilities.
    #[prost(message, optional, tag = "22")]
    pub abilities: Option<AbilitiesMessage>,
    /// Where it entered the nether, when it has.
    #[prost(message, optional, tag = "23")]
    pub entered_nether_position: Option<Vector3dMessage>,
    /// What it rides, when it does.
    #[prost(message, optional, tag = "24")]
    pub root_vehicle: Option<VehicleMessage>,
    /// On its left shoulder.
    #[prost(message, optional, tag = "25")]
    pub shoulder_entity_left: Option<EntityMessage>,
    /// On its right shoulder.
    #[prost(message, optional, tag = "26")]
    pub shoulder_entity_right: Option<EntityMessage>,
    /// Has seen the credits.
    #[prost(bool, tag = "27")]
    pub seen_credits: bool,
    /// Its recipe book.
    #[prost(message, optional, tag = "28")]
    pub recipe_book: Option<RecipeBookMessage>,
}

/// Every player (rsb's `Players`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PlayersMessage {
    /// The players.
    #[prost(message, repeated, tag = "1")]
    pub players: Vec<PlayerMessage>,
}

minecraft_messages! {
    players: PlayersMessage, player: PlayerMessage, item: ItemMessage,
    abilities: AbilitiesMessage, vector3d: Vector3dMessage, vector2f: Vector2fMessage,
    uuid: FourU32Message, entity: EntityMessage, recipe_book: RecipeBookMessage,
    vehicle: VehicleMessage,
    some: Some, take: required, optional: std::convert::identity, option: std::convert::identity,
    enum_to: |n: i32| n, enum_from: |n: i32| n,
    rest: {},
}
