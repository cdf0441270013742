//! The save with its strings borrowed from the payload it was read from (rsb's `borrow`
//! column): the same fields as [`super::Player`], every `String` a `&str`.

use super::{Abilities, Entity, GameType, Item, Player, Players, RecipeBook};

/// An [`Item`] whose name borrows.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BorrowItem<'a> {
    /// How many.
    pub count: i8,
    /// Which slot.
    pub slot: u8,
    /// What item.
    pub id: &'a str,
}

/// An [`Entity`] whose strings borrow.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BorrowEntity<'a> {
    /// What it is.
    pub id: &'a str,
    /// Where it is.
    pub pos: (f64, f64, f64),
    /// How it moves.
    pub motion: (f64, f64, f64),
    /// Which way it faces.
    pub rotation: (f32, f32),
    /// How far it has fallen.
    pub fall_distance: f32,
    /// Fire ticks.
    pub fire: u16,
    /// Air ticks.
    pub air: u16,
    /// On the ground.
    pub on_ground: bool,
    /// Without gravity.
    pub no_gravity: bool,
    /// Cannot be hurt.
    pub invulnerable: bool,
    /// Ticks until it may use a portal.
    pub portal_cooldown: i32,
    /// Its id.
    pub uuid: [u32; 4],
    /// Its name, if it has one.
    pub custom_name: Option<&'a str>,
    /// Whether the name shows.
    pub custom_name_visible: bool,
    /// Makes no sound.
    pub silent: bool,
    /// Glows.
    pub glowing: bool,
}

/// A [`RecipeBook`] whose recipes borrow.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BorrowRecipeBook<'a> {
    /// Known recipes.
    #[serde(borrow)]
    pub recipes: Vec<&'a str>,
    /// Recipes to show.
    #[serde(borrow)]
    pub to_be_displayed: Vec<&'a str>,
    /// Crafting filter on.
    pub is_filtering_craftable: bool,
    /// Crafting screen open.
    pub is_gui_open: bool,
    /// Furnace filter on.
    pub is_furnace_filtering_craftable: bool,
    /// Furnace screen open.
    pub is_furnace_gui_open: bool,
    /// Blast furnace filter on.
    pub is_blasting_furnace_filtering_craftable: bool,
    /// Blast furnace screen open.
    pub is_blasting_furnace_gui_open: bool,
    /// Smoker filter on.
    pub is_smoker_filtering_craftable: bool,
    /// Smoker screen open.
    pub is_smoker_gui_open: bool,
}

/// A [`Player`] whose strings borrow.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BorrowPlayer<'a> {
    /// Game mode.
    pub game_type: GameType,
    /// Game mode before.
    pub previous_game_type: GameType,
    /// Score.
    pub score: i64,
    /// Dimension.
    pub dimension: &'a str,
    /// Selected slot.
    pub selected_item_slot: u32,
    /// Selected item.
    #[serde(borrow)]
    pub selected_item: BorrowItem<'a>,
    /// Dimension of the spawn point, if set.
    pub spawn_dimension: Option<&'a str>,
    /// Spawn x.
    pub spawn_x: i64,
    /// Spawn y.
    pub spawn_y: i64,
    /// Spawn z.
    pub spawn_z: i64,
    /// Forced spawn, if set.
    pub spawn_forced: Option<bool>,
    /// Sleep ticks.
    pub sleep_timer: u16,
    /// Food exhaustion.
    pub food_exhaustion_level: f32,
    /// Food saturation.
    pub food_saturation_level: f32,
    /// Food ticks.
    pub food_tick_timer: u32,
    /// Experience level.
    pub xp_level: u32,
    /// Progress to the next level.
    pub xp_p: f32,
    /// Total experience.
    pub xp_total: i32,
    /// Experience seed.
    pub xp_seed: i32,
    /// Inventory.
    #[serde(borrow)]
    pub inventory: Vec<BorrowItem<'a>>,
    /// Ender chest.
    #[serde(borrow)]
    pub ender_items: Vec<BorrowItem<'a>>,
    /// Abilities.
    pub abilities: Abilities,
    /// Where the player entered the nether, if they did.
    pub entered_nether_position: Option<(f64, f64, f64)>,
    /// The vehicle ridden, if any, with its id.
    #[serde(borrow)]
    pub root_vehicle: Option<([u32; 4], BorrowEntity<'a>)>,
    /// Parrot on the left shoulder.
    #[serde(borrow)]
    pub shoulder_entity_left: Option<BorrowEntity<'a>>,
    /// Parrot on the right shoulder.
    #[serde(borrow)]
    pub shoulder_entity_right: Option<BorrowEntity<'a>>,
    /// Has seen the credits.
    pub seen_credits: bool,
    /// Recipes.
    #[serde(borrow)]
    pub recipe_book: BorrowRecipeBook<'a>,
}

/// [`Players`] read without copying its strings.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BorrowPlayers<'a> {
    /// The players.
    #[serde(borrow)]
    pub players: Vec<BorrowPlayer<'a>>,
}

impl From<BorrowItem<'_>> for Item {
    fn from(i: BorrowItem<'_>) -> Item {
        Item {
            count: i.count,
            slot: i.slot,
            id: i.id.to_owned(),
        }
    }
}

impl From<BorrowEntity<'_>> for Entity {
    fn from(e: BorrowEntity<'_>) -> Entity {
        Entity {
            id: e.id.to_owned(),
            pos: e.pos,
            motion: e.motion,
            rotation: e.rotation,
            fall_distance: e.fall_distance,
            fire: e.fire,
            air: e.air,
            on_ground: e.on_ground,
            no_gravity: e.no_gravity,
            invulnerable: e.invulnerable,
            portal_cooldown: e.portal_cooldown,
            uuid: e.uuid,
            custom_name: e.custom_name.map(str::to_owned),
            custom_name_visible: e.custom_name_visible,
            silent: e.silent,
            glowing: e.glowing,
        }
    }
}

/// Owned strings of borrowed ones.
fn owned(names: Vec<&str>) -> Vec<String> {
    names.into_iter().map(str::to_owned).collect()
}

impl From<BorrowRecipeBook<'_>> for RecipeBook {
    fn from(b: BorrowRecipeBook<'_>) -> RecipeBook {
        RecipeBook {
            recipes: owned(b.recipes),
            to_be_displayed: owned(b.to_be_displayed),
            is_filtering_craftable: b.is_filtering_craftable,
            is_gui_open: b.is_gui_open,
            is_furnace_filtering_craftable: b.is_furnace_filtering_craftable,
            is_furnace_gui_open: b.is_furnace_gui_open,
            is_blasting_furnace_filtering_craftable: b.is_blasting_furnace_filtering_craftable,
            is_blasting_furnace_gui_open: b.is_blasting_furnace_gui_open,
            is_smoker_filtering_craftable: b.is_smoker_filtering_craftable,
            is_smoker_gui_open: b.is_smoker_gui_open,
        }
    }
}

impl From<BorrowPlayer<'_>> for Player {
    fn from(p: BorrowPlayer<'_>) -> Player {
        Player {
            game_type: p.game_type,
            previous_game_type: p.previous_game_type,
            score: p.score,
            dimension: p.dimension.to_owned(),
            selected_item_slot: p.selected_item_slot,
            selected_item: p.selected_item.into(),
            spawn_dimension: p.spawn_dimension.map(str::to_owned),
            spawn_x: p.spawn_x,
            spawn_y: p.spawn_y,
            spawn_z: p.spawn_z,
            spawn_forced: p.spawn_forced,
            sleep_timer: p.sleep_timer,
            food_exhaustion_level: p.food_exhaustion_level,
            food_saturation_level: p.food_saturation_level,
            food_tick_timer: p.food_tick_timer,
            xp_level: p.xp_level,
            xp_p: p.xp_p,
            xp_total: p.xp_total,
            xp_seed: p.xp_seed,
            inventory: p.inventory.into_iter().map(Into::into).collect(),
            ender_items: p.ender_items.into_iter().map(Into::into).collect(),
            abilities: p.abilities,
            entered_nether_position: p.entered_nether_position,
            root_vehicle: p.root_vehicle.map(|(id, e)| (id, e.into())),
            shoulder_entity_left: p.shoulder_entity_left.map(Into::into),
            shoulder_entity_right: p.shoulder_entity_right.map(Into::into),
            seen_credits: p.seen_credits,
            recipe_book: p.recipe_book.into(),
        }
    }
}

impl From<BorrowPlayers<'_>> for Players {
    fn from(b: BorrowPlayers<'_>) -> Players {
        Players {
            players: b.players.into_iter().map(Into::into).collect(),
        }
    }
}
