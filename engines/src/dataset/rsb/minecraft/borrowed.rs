//! The save with its strings borrowed from the payload it was read from (rsb's `borrow`
//! column): the same fields as [`super::Player`] and its parts, every `String` a `&str`. The
//! fields are the owned types' (documented there), so they carry no documents of their own.

#![allow(missing_docs)]

use super::{Abilities, Entity, GameType, Item, Player, Players, RecipeBook};

super::super::borrowed_types! {
    /// An [`Item`] whose name borrows.
    pub struct BorrowItem<'a> {
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(varint)))]
        pub count: i8,
        #[cfg_attr(feature = "minicbor", n(1))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(varint)))]
        pub slot: u8,
        #[cfg_attr(feature = "minicbor", b(2))]
        pub id: &'a str,
    }

    /// An [`Entity`] whose strings borrow.
    pub struct BorrowEntity<'a> {
        #[cfg_attr(feature = "minicbor", b(0))]
        pub id: &'a str,
        #[cfg_attr(feature = "minicbor", n(1))]
        pub pos: (f64, f64, f64),
        #[cfg_attr(feature = "minicbor", n(2))]
        pub motion: (f64, f64, f64),
        #[cfg_attr(feature = "minicbor", n(3))]
        pub rotation: (f32, f32),
        #[cfg_attr(feature = "minicbor", n(4))]
        pub fall_distance: f32,
        #[cfg_attr(feature = "minicbor", n(5))]
        pub fire: u16,
        #[cfg_attr(feature = "minicbor", n(6))]
        pub air: u16,
        #[cfg_attr(feature = "minicbor", n(7))]
        pub on_ground: bool,
        #[cfg_attr(feature = "minicbor", n(8))]
        pub no_gravity: bool,
        #[cfg_attr(feature = "minicbor", n(9))]
        pub invulnerable: bool,
        #[cfg_attr(feature = "minicbor", n(10))]
        pub portal_cooldown: i32,
        #[cfg_attr(feature = "minicbor", n(11))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding = "packed<fixed>"))]
        pub uuid: [u32; 4],
        #[cfg_attr(feature = "minicbor", b(12))]
        pub custom_name: Option<&'a str>,
        #[cfg_attr(feature = "minicbor", n(13))]
        pub custom_name_visible: bool,
        #[cfg_attr(feature = "minicbor", n(14))]
        pub silent: bool,
        #[cfg_attr(feature = "minicbor", n(15))]
        pub glowing: bool,
    }

    /// A [`RecipeBook`] whose recipes borrow.
    pub struct BorrowRecipeBook<'a> {
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub recipes: Vec<&'a str>,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(1))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub to_be_displayed: Vec<&'a str>,
        #[cfg_attr(feature = "minicbor", n(2))]
        pub is_filtering_craftable: bool,
        #[cfg_attr(feature = "minicbor", n(3))]
        pub is_gui_open: bool,
        #[cfg_attr(feature = "minicbor", n(4))]
        pub is_furnace_filtering_craftable: bool,
        #[cfg_attr(feature = "minicbor", n(5))]
        pub is_furnace_gui_open: bool,
        #[cfg_attr(feature = "minicbor", n(6))]
        pub is_blasting_furnace_filtering_craftable: bool,
        #[cfg_attr(feature = "minicbor", n(7))]
        pub is_blasting_furnace_gui_open: bool,
        #[cfg_attr(feature = "minicbor", n(8))]
        pub is_smoker_filtering_craftable: bool,
        #[cfg_attr(feature = "minicbor", n(9))]
        pub is_smoker_gui_open: bool,
    }

    /// A [`Player`] whose strings borrow.
    pub struct BorrowPlayer<'a> {
        #[cfg_attr(feature = "minicbor", n(0))]
        pub game_type: GameType,
        #[cfg_attr(feature = "minicbor", n(1))]
        pub previous_game_type: GameType,
        #[cfg_attr(feature = "minicbor", n(2))]
        pub score: i64,
        #[cfg_attr(feature = "minicbor", b(3))]
        pub dimension: &'a str,
        #[cfg_attr(feature = "minicbor", n(4))]
        pub selected_item_slot: u32,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(5))]
        pub selected_item: BorrowItem<'a>,
        #[cfg_attr(feature = "minicbor", b(6))]
        pub spawn_dimension: Option<&'a str>,
        #[cfg_attr(feature = "minicbor", n(7))]
        pub spawn_x: i64,
        #[cfg_attr(feature = "minicbor", n(8))]
        pub spawn_y: i64,
        #[cfg_attr(feature = "minicbor", n(9))]
        pub spawn_z: i64,
        #[cfg_attr(feature = "minicbor", n(10))]
        pub spawn_forced: Option<bool>,
        #[cfg_attr(feature = "minicbor", n(11))]
        pub sleep_timer: u16,
        #[cfg_attr(feature = "minicbor", n(12))]
        pub food_exhaustion_level: f32,
        #[cfg_attr(feature = "minicbor", n(13))]
        pub food_saturation_level: f32,
        #[cfg_attr(feature = "minicbor", n(14))]
        pub food_tick_timer: u32,
        #[cfg_attr(feature = "minicbor", n(15))]
        pub xp_level: u32,
        #[cfg_attr(feature = "minicbor", n(16))]
        pub xp_p: f32,
        #[cfg_attr(feature = "minicbor", n(17))]
        pub xp_total: i32,
        #[cfg_attr(feature = "minicbor", n(18))]
        pub xp_seed: i32,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(19))]
        pub inventory: Vec<BorrowItem<'a>>,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(20))]
        pub ender_items: Vec<BorrowItem<'a>>,
        #[cfg_attr(feature = "minicbor", n(21))]
        pub abilities: Abilities,
        #[cfg_attr(feature = "minicbor", n(22))]
        pub entered_nether_position: Option<(f64, f64, f64)>,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(23))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding = "(packed<fixed>, general)"))]
        pub root_vehicle: Option<([u32; 4], BorrowEntity<'a>)>,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(24))]
        pub shoulder_entity_left: Option<BorrowEntity<'a>>,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(25))]
        pub shoulder_entity_right: Option<BorrowEntity<'a>>,
        #[cfg_attr(feature = "minicbor", n(26))]
        pub seen_credits: bool,
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(27))]
        pub recipe_book: BorrowRecipeBook<'a>,
    }

    /// [`Players`] read without copying its strings.
    pub struct BorrowPlayers<'a> {
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub players: Vec<BorrowPlayer<'a>>,
    }

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
