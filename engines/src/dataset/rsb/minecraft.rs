//! rsb's `minecraft_savedata` dataset: 500 players of a Minecraft save, with nested
//! inventories, enums, tuples, arrays and optional fields.

use rand::Rng;

use super::{many, rsb_types};

/// How many players the save holds.
pub const PLAYERS: usize = 500;

rsb_types! {
    /// A player's game mode.
    #[derive(Copy, Eq)]
    #[cfg_attr(feature = "msgpacker", derive(msgpacker::MsgUnpackerBorrowed))]
    #[cfg_attr(feature = "wincode", wincode(tag_encoding = "u8"))]
    #[cfg_attr(feature = "bilrost", derive(bilrost::Enumeration))]
    pub enum GameType {
        /// Survival.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(0))]
        Survival,
        /// Creative.
        #[cfg_attr(feature = "minicbor", n(1))]
        #[cfg_attr(feature = "bilrost", bilrost(1))]
        Creative,
        /// Adventure.
        #[cfg_attr(feature = "minicbor", n(2))]
        #[cfg_attr(feature = "bilrost", bilrost(2))]
        Adventure,
        /// Spectator.
        #[cfg_attr(feature = "minicbor", n(3))]
        #[cfg_attr(feature = "bilrost", bilrost(3))]
        Spectator,
    }

    /// A stack of items in a slot.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Item {
        /// How many.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(varint)))]
        pub count: i8,
        /// Which slot.
        #[cfg_attr(feature = "minicbor", n(1))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(varint)))]
        pub slot: u8,
        /// What item.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub id: String,
    }

    /// What a player may do.
    #[derive(Copy)]
    #[cfg_attr(feature = "msgpacker", derive(msgpacker::MsgUnpackerBorrowed))]
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Abilities {
        /// Walking speed.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub walk_speed: f32,
        /// Flying speed.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub fly_speed: f32,
        /// May fly.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub may_fly: bool,
        /// Flies.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub flying: bool,
        /// Cannot be hurt.
        #[cfg_attr(feature = "minicbor", n(4))]
        pub invulnerable: bool,
        /// May build.
        #[cfg_attr(feature = "minicbor", n(5))]
        pub may_build: bool,
        /// Builds instantly.
        #[cfg_attr(feature = "minicbor", n(6))]
        pub instabuild: bool,
    }

    /// A creature or vehicle.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Entity {
        /// What it is.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub id: String,
        /// Where it is.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub pos: (f64, f64, f64),
        /// How it moves.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub motion: (f64, f64, f64),
        /// Which way it faces.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub rotation: (f32, f32),
        /// How far it has fallen.
        #[cfg_attr(feature = "minicbor", n(4))]
        pub fall_distance: f32,
        /// Fire ticks.
        #[cfg_attr(feature = "minicbor", n(5))]
        pub fire: u16,
        /// Air ticks.
        #[cfg_attr(feature = "minicbor", n(6))]
        pub air: u16,
        /// On the ground.
        #[cfg_attr(feature = "minicbor", n(7))]
        pub on_ground: bool,
        /// Without gravity.
        #[cfg_attr(feature = "minicbor", n(8))]
        pub no_gravity: bool,
        /// Cannot be hurt.
        #[cfg_attr(feature = "minicbor", n(9))]
        pub invulnerable: bool,
        /// Ticks until it may use a portal.
        #[cfg_attr(feature = "minicbor", n(10))]
        pub portal_cooldown: i32,
        /// Its id.
        #[cfg_attr(feature = "minicbor", n(11))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding = "packed<fixed>"))]
        pub uuid: [u32; 4],
        /// Its name, if it has one.
        #[cfg_attr(feature = "minicbor", n(12))]
        pub custom_name: Option<String>,
        /// Whether the name shows.
        #[cfg_attr(feature = "minicbor", n(13))]
        pub custom_name_visible: bool,
        /// Makes no sound.
        #[cfg_attr(feature = "minicbor", n(14))]
        pub silent: bool,
        /// Glows.
        #[cfg_attr(feature = "minicbor", n(15))]
        pub glowing: bool,
    }

    /// The recipes a player knows.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct RecipeBook {
        /// Known recipes.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub recipes: Vec<String>,
        /// Recipes to show.
        #[cfg_attr(feature = "minicbor", n(1))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub to_be_displayed: Vec<String>,
        /// Crafting filter on.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub is_filtering_craftable: bool,
        /// Crafting screen open.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub is_gui_open: bool,
        /// Furnace filter on.
        #[cfg_attr(feature = "minicbor", n(4))]
        pub is_furnace_filtering_craftable: bool,
        /// Furnace screen open.
        #[cfg_attr(feature = "minicbor", n(5))]
        pub is_furnace_gui_open: bool,
        /// Blast furnace filter on.
        #[cfg_attr(feature = "minicbor", n(6))]
        pub is_blasting_furnace_filtering_craftable: bool,
        /// Blast furnace screen open.
        #[cfg_attr(feature = "minicbor", n(7))]
        pub is_blasting_furnace_gui_open: bool,
        /// Smoker filter on.
        #[cfg_attr(feature = "minicbor", n(8))]
        pub is_smoker_filtering_craftable: bool,
        /// Smoker screen open.
        #[cfg_attr(feature = "minicbor", n(9))]
        pub is_smoker_gui_open: bool,
    }

    /// One player's saved state.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Player {
        /// Game mode.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub game_type: GameType,
        /// Game mode before.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub previous_game_type: GameType,
        /// Score.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub score: i64,
        /// Dimension.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub dimension: String,
        /// Selected slot.
        #[cfg_attr(feature = "minicbor", n(4))]
        pub selected_item_slot: u32,
        /// Selected item.
        #[cfg_attr(feature = "minicbor", n(5))]
        pub selected_item: Item,
        /// Dimension of the spawn point, if set.
        #[cfg_attr(feature = "minicbor", n(6))]
        pub spawn_dimension: Option<String>,
        /// Spawn x.
        #[cfg_attr(feature = "minicbor", n(7))]
        pub spawn_x: i64,
        /// Spawn y.
        #[cfg_attr(feature = "minicbor", n(8))]
        pub spawn_y: i64,
        /// Spawn z.
        #[cfg_attr(feature = "minicbor", n(9))]
        pub spawn_z: i64,
        /// Forced spawn, if set.
        #[cfg_attr(feature = "minicbor", n(10))]
        pub spawn_forced: Option<bool>,
        /// Sleep ticks.
        #[cfg_attr(feature = "minicbor", n(11))]
        pub sleep_timer: u16,
        /// Food exhaustion.
        #[cfg_attr(feature = "minicbor", n(12))]
        pub food_exhaustion_level: f32,
        /// Food saturation.
        #[cfg_attr(feature = "minicbor", n(13))]
        pub food_saturation_level: f32,
        /// Food ticks.
        #[cfg_attr(feature = "minicbor", n(14))]
        pub food_tick_timer: u32,
        /// Experience level.
        #[cfg_attr(feature = "minicbor", n(15))]
        pub xp_level: u32,
        /// Progress to the next level.
        #[cfg_attr(feature = "minicbor", n(16))]
        pub xp_p: f32,
        /// Total experience.
        #[cfg_attr(feature = "minicbor", n(17))]
        pub xp_total: i32,
        /// Experience seed.
        #[cfg_attr(feature = "minicbor", n(18))]
        pub xp_seed: i32,
        /// Inventory.
        #[cfg_attr(feature = "minicbor", n(19))]
        pub inventory: Vec<Item>,
        /// Ender chest.
        #[cfg_attr(feature = "minicbor", n(20))]
        pub ender_items: Vec<Item>,
        /// Abilities.
        #[cfg_attr(feature = "minicbor", n(21))]
        pub abilities: Abilities,
        /// Where the player entered the nether, if they did.
        #[cfg_attr(feature = "minicbor", n(22))]
        pub entered_nether_position: Option<(f64, f64, f64)>,
        /// The vehicle ridden, if any, with its id.
        #[cfg_attr(feature = "minicbor", n(23))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding = "(packed<fixed>, general)"))]
        pub root_vehicle: Option<([u32; 4], Entity)>,
        /// Parrot on the left shoulder.
        #[cfg_attr(feature = "minicbor", n(24))]
        pub shoulder_entity_left: Option<Entity>,
        /// Parrot on the right shoulder.
        #[cfg_attr(feature = "minicbor", n(25))]
        pub shoulder_entity_right: Option<Entity>,
        /// Has seen the credits.
        #[cfg_attr(feature = "minicbor", n(26))]
        pub seen_credits: bool,
        /// Recipes.
        #[cfg_attr(feature = "minicbor", n(27))]
        pub recipe_book: RecipeBook,
    }

    /// The dataset: every player.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Players {
        /// The players.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub players: Vec<Player>,
    }
}

pub use borrowed::{BorrowPlayer, BorrowPlayers};

mod borrowed;

/// Item names.
const ITEMS: [&str; 8] = [
    "dirt",
    "stone",
    "pickaxe",
    "sand",
    "gravel",
    "shovel",
    "chestplate",
    "steak",
];
/// Entity kinds.
const ENTITIES: [&str; 8] = [
    "cow", "sheep", "zombie", "skeleton", "spider", "creeper", "parrot", "bee",
];
/// Names given to entities.
const NAMES: [&str; 8] = [
    "rainbow", "princess", "steve", "johnny", "missy", "coward", "fairy", "howard",
];
/// Recipes.
const RECIPES: [&str; 8] = [
    "pickaxe",
    "torch",
    "bow",
    "crafting table",
    "furnace",
    "shears",
    "arrow",
    "tnt",
];
/// Dimensions.
const DIMENSIONS: [&str; 3] = ["overworld", "nether", "end"];

/// One of `names`, drawn uniformly, as an owned string.
fn pick<R: Rng>(rng: &mut R, names: &[&str]) -> String {
    names[rng.gen_range(0..names.len())].to_owned()
}

/// `Some(make())` half the time (the coin drawn first).
fn maybe<R: Rng, T>(rng: &mut R, make: impl FnOnce(&mut R) -> T) -> Option<T> {
    if rng.gen_bool(0.5) {
        Some(make(rng))
    } else {
        None
    }
}

/// A coin.
fn coin<R: Rng>(rng: &mut R) -> bool {
    rng.gen_bool(0.5)
}

/// Three standard `f64` draws.
fn triple<R: Rng>(rng: &mut R) -> (f64, f64, f64) {
    (rng.gen(), rng.gen(), rng.gen())
}

fn game_type<R: Rng>(rng: &mut R) -> GameType {
    // Drawn as an i32 in 0..4.
    match rng.gen_range(0i32..4) {
        0 => GameType::Survival,
        1 => GameType::Creative,
        2 => GameType::Adventure,
        _ => GameType::Spectator,
    }
}

fn item<R: Rng>(rng: &mut R) -> Item {
    Item {
        count: rng.gen(),
        slot: rng.gen(),
        id: pick(rng, &ITEMS),
    }
}

fn abilities<R: Rng>(rng: &mut R) -> Abilities {
    Abilities {
        walk_speed: rng.gen(),
        fly_speed: rng.gen(),
        may_fly: coin(rng),
        flying: coin(rng),
        invulnerable: coin(rng),
        may_build: coin(rng),
        instabuild: coin(rng),
    }
}

fn entity<R: Rng>(rng: &mut R) -> Entity {
    Entity {
        id: pick(rng, &ENTITIES),
        pos: triple(rng),
        motion: triple(rng),
        rotation: (rng.gen(), rng.gen()),
        fall_distance: rng.gen(),
        fire: rng.gen(),
        air: rng.gen(),
        on_ground: coin(rng),
        no_gravity: coin(rng),
        invulnerable: coin(rng),
        portal_cooldown: rng.gen(),
        uuid: [rng.gen(), rng.gen(), rng.gen(), rng.gen()],
        custom_name: maybe(rng, |rng| pick(rng, &NAMES)),
        custom_name_visible: coin(rng),
        silent: coin(rng),
        glowing: coin(rng),
    }
}

fn recipe_book<R: Rng>(rng: &mut R) -> RecipeBook {
    RecipeBook {
        recipes: many(rng, 0..30, |rng| pick(rng, &RECIPES)),
        to_be_displayed: many(rng, 0..10, |rng| pick(rng, &RECIPES)),
        is_filtering_craftable: coin(rng),
        is_gui_open: coin(rng),
        is_furnace_filtering_craftable: coin(rng),
        is_furnace_gui_open: coin(rng),
        is_blasting_furnace_filtering_craftable: coin(rng),
        is_blasting_furnace_gui_open: coin(rng),
        is_smoker_filtering_craftable: coin(rng),
        is_smoker_gui_open: coin(rng),
    }
}

fn player<R: Rng>(rng: &mut R) -> Player {
    Player {
        game_type: game_type(rng),
        previous_game_type: game_type(rng),
        score: rng.gen(),
        dimension: pick(rng, &DIMENSIONS),
        selected_item_slot: rng.gen(),
        selected_item: item(rng),
        spawn_dimension: maybe(rng, |rng| pick(rng, &DIMENSIONS)),
        spawn_x: rng.gen(),
        spawn_y: rng.gen(),
        spawn_z: rng.gen(),
        spawn_forced: maybe(rng, coin),
        sleep_timer: rng.gen(),
        food_exhaustion_level: rng.gen(),
        food_saturation_level: rng.gen(),
        food_tick_timer: rng.gen(),
        xp_level: rng.gen(),
        xp_p: rng.gen(),
        xp_total: rng.gen(),
        xp_seed: rng.gen(),
        inventory: many(rng, 0..40, item),
        ender_items: many(rng, 0..27, item),
        abilities: abilities(rng),
        entered_nether_position: maybe(rng, triple),
        root_vehicle: maybe(rng, |rng| {
            ([rng.gen(), rng.gen(), rng.gen(), rng.gen()], entity(rng))
        }),
        shoulder_entity_left: maybe(rng, entity),
        shoulder_entity_right: maybe(rng, entity),
        seen_credits: coin(rng),
        recipe_book: recipe_book(rng),
    }
}

/// The dataset, one value: rsb's 500 players.
pub fn players() -> Vec<Players> {
    let mut rng = super::rng();
    vec![Players {
        players: many(&mut rng, PLAYERS..PLAYERS + 1, player),
    }]
}

// SAFETY: rkyv archives an enum as a `#[repr(u8)]` enum; GameType's variants have no fields,
// so its archive is one initialised byte with no padding, which rkyv's `Seal` may then hand out
// mutably (the rsb studies' `rkyv.update`; rsb's benchmark makes the same declaration).
#[cfg(feature = "rkyv")]
unsafe impl rkyv::traits::NoUndef for ArchivedGameType {}

/// A game mode's index, in declaration order.
pub fn game_type_index(g: GameType) -> i64 {
    g as i64
}

/// What rsb's read of a save's archive touches (each player's game mode), as the access rows'
/// digest.
pub fn read_digest(players: &Players) -> u64 {
    super::read_each(&players.players, |d, p| d.int(game_type_index(p.game_type)))
}

/// rsb's update of a save's archive, made to the value: every player's game mode to survival
/// and spawn point to the origin (the `rkyv.update` rows' check).
pub fn rsb_update(players: &mut Players) {
    for p in &mut players.players {
        p.game_type = GameType::Survival;
        p.spawn_x = 0;
        p.spawn_y = 0;
        p.spawn_z = 0;
    }
}
