//! rsb's `minecraft_savedata` as Protobuf messages (its `minecraft_savedata.proto`).

use super::{fit, required, FourU32Message, Messages, Vector2fMessage};
use crate::dataset::rsb::minecraft::{
    Abilities, Entity, GameType, Item, Player, Players, RecipeBook,
};
use serprof_api::CodecError;

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

fn game_type(g: GameType) -> i32 {
    (match g {
        GameType::Survival => GameTypeMessage::Survival,
        GameType::Creative => GameTypeMessage::Creative,
        GameType::Adventure => GameTypeMessage::Adventure,
        GameType::Spectator => GameTypeMessage::Spectator,
    }) as i32
}

fn game_type_back(n: i32, what: &str) -> Result<GameType, CodecError> {
    match GameTypeMessage::try_from(n) {
        Ok(GameTypeMessage::Survival) => Ok(GameType::Survival),
        Ok(GameTypeMessage::Creative) => Ok(GameType::Creative),
        Ok(GameTypeMessage::Adventure) => Ok(GameType::Adventure),
        Ok(GameTypeMessage::Spectator) => Ok(GameType::Spectator),
        Err(_) => Err(CodecError::decode(format_args!(
            "{what} {n} is no game type"
        ))),
    }
}

fn item(i: &Item) -> ItemMessage {
    ItemMessage {
        count: i.count.into(),
        slot: i.slot.into(),
        id: i.id.clone(),
    }
}

fn item_back(i: ItemMessage) -> Result<Item, CodecError> {
    Ok(Item {
        count: fit(i.count, "Item.count")?,
        slot: fit(i.slot, "Item.slot")?,
        id: i.id,
    })
}

fn items_back(items: Vec<ItemMessage>) -> Result<Vec<Item>, CodecError> {
    items.into_iter().map(item_back).collect()
}

fn vector3d((x, y, z): (f64, f64, f64)) -> Vector3dMessage {
    Vector3dMessage { x, y, z }
}

fn vector3d_back(v: Vector3dMessage) -> (f64, f64, f64) {
    (v.x, v.y, v.z)
}

fn uuid([x0, x1, x2, x3]: [u32; 4]) -> FourU32Message {
    FourU32Message { x0, x1, x2, x3 }
}

fn uuid_back(u: FourU32Message) -> [u32; 4] {
    [u.x0, u.x1, u.x2, u.x3]
}

fn entity(e: &Entity) -> EntityMessage {
    EntityMessage {
        id: e.id.clone(),
        pos: Some(vector3d(e.pos)),
        motion: Some(vector3d(e.motion)),
        rotation: Some(Vector2fMessage {
            x: e.rotation.0,
            y: e.rotation.1,
        }),
        fall_distance: e.fall_distance,
        fire: e.fire.into(),
        air: e.air.into(),
        on_ground: e.on_ground,
        no_gravity: e.no_gravity,
        invulnerable: e.invulnerable,
        portal_cooldown: e.portal_cooldown,
        uuid: Some(uuid(e.uuid)),
        custom_name: e.custom_name.clone(),
        custom_name_visible: e.custom_name_visible,
        silent: e.silent,
        glowing: e.glowing,
    }
}

fn entity_back(e: EntityMessage) -> Result<Entity, CodecError> {
    let rotation = required(e.rotation, "Entity.rotation")?;
    Ok(Entity {
        id: e.id,
        pos: vector3d_back(required(e.pos, "Entity.pos")?),
        motion: vector3d_back(required(e.motion, "Entity.motion")?),
        rotation: (rotation.x, rotation.y),
        fall_distance: e.fall_distance,
        fire: fit(e.fire, "Entity.fire")?,
        air: fit(e.air, "Entity.air")?,
        on_ground: e.on_ground,
        no_gravity: e.no_gravity,
        invulnerable: e.invulnerable,
        portal_cooldown: e.portal_cooldown,
        uuid: uuid_back(required(e.uuid, "Entity.uuid")?),
        custom_name: e.custom_name,
        custom_name_visible: e.custom_name_visible,
        silent: e.silent,
        glowing: e.glowing,
    })
}

fn recipe_book(r: &RecipeBook) -> RecipeBookMessage {
    RecipeBookMessage {
        recipes: r.recipes.clone(),
        to_be_displayed: r.to_be_displayed.clone(),
        is_filtering_craftable: r.is_filtering_craftable,
        is_gui_open: r.is_gui_open,
        is_furnace_filtering_craftable: r.is_furnace_filtering_craftable,
        is_furnace_gui_open: r.is_furnace_gui_open,
        is_blasting_furnace_filtering_craftable: r.is_blasting_furnace_filtering_craftable,
        is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open,
        is_smoker_filtering_craftable: r.is_smoker_filtering_craftable,
        is_smoker_gui_open: r.is_smoker_gui_open,
    }
}

fn recipe_book_back(r: RecipeBookMessage) -> RecipeBook {
    RecipeBook {
        recipes: r.recipes,
        to_be_displayed: r.to_be_displayed,
        is_filtering_craftable: r.is_filtering_craftable,
        is_gui_open: r.is_gui_open,
        is_furnace_filtering_craftable: r.is_furnace_filtering_craftable,
        is_furnace_gui_open: r.is_furnace_gui_open,
        is_blasting_furnace_filtering_craftable: r.is_blasting_furnace_filtering_craftable,
        is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open,
        is_smoker_filtering_craftable: r.is_smoker_filtering_craftable,
        is_smoker_gui_open: r.is_smoker_gui_open,
    }
}

fn abilities(a: &Abilities) -> AbilitiesMessage {
    AbilitiesMessage {
        walk_speed: a.walk_speed,
        fly_speed: a.fly_speed,
        may_fly: a.may_fly,
        flying: a.flying,
        invulnerable: a.invulnerable,
        may_build: a.may_build,
        instabuild: a.instabuild,
    }
}

fn abilities_back(a: AbilitiesMessage) -> Abilities {
    Abilities {
        walk_speed: a.walk_speed,
        fly_speed: a.fly_speed,
        may_fly: a.may_fly,
        flying: a.flying,
        invulnerable: a.invulnerable,
        may_build: a.may_build,
        instabuild: a.instabuild,
    }
}

fn player(p: &Player) -> PlayerMessage {
    PlayerMessage {
        game_type: game_type(p.game_type),
        previous_game_type: game_type(p.previous_game_type),
        score: p.score,
        dimension: p.dimension.clone(),
        selected_item_slot: p.selected_item_slot,
        selected_item: Some(item(&p.selected_item)),
        spawn_dimension: p.spawn_dimension.clone(),
        spawn_x: p.spawn_x,
        spawn_y: p.spawn_y,
        spawn_z: p.spawn_z,
        spawn_forced: p.spawn_forced,
        sleep_timer: p.sleep_timer.into(),
        food_exhaustion_level: p.food_exhaustion_level,
        food_saturation_level: p.food_saturation_level,
        food_tick_timer: p.food_tick_timer,
        xp_level: p.xp_level,
        xp_p: p.xp_p,
        xp_total: p.xp_total,
        xp_seed: p.xp_seed,
        inventory: p.inventory.iter().map(item).collect(),
        ender_items: p.ender_items.iter().map(item).collect(),
        abilities: Some(abilities(&p.abilities)),
        entered_nether_position: p.entered_nether_position.map(vector3d),
        root_vehicle: p.root_vehicle.as_ref().map(|(id, e)| VehicleMessage {
            uuid: Some(uuid(*id)),
            entity: Some(entity(e)),
        }),
        shoulder_entity_left: p.shoulder_entity_left.as_ref().map(entity),
        shoulder_entity_right: p.shoulder_entity_right.as_ref().map(entity),
        seen_credits: p.seen_credits,
        recipe_book: Some(recipe_book(&p.recipe_book)),
    }
}

fn player_back(p: PlayerMessage) -> Result<Player, CodecError> {
    let root_vehicle = match p.root_vehicle {
        Some(v) => Some((
            uuid_back(required(v.uuid, "Vehicle.uuid")?),
            entity_back(required(v.entity, "Vehicle.entity")?)?,
        )),
        None => None,
    };
    Ok(Player {
        game_type: game_type_back(p.game_type, "Player.game_type")?,
        previous_game_type: game_type_back(p.previous_game_type, "Player.previous_game_type")?,
        score: p.score,
        dimension: p.dimension,
        selected_item_slot: p.selected_item_slot,
        selected_item: item_back(required(p.selected_item, "Player.selected_item")?)?,
        spawn_dimension: p.spawn_dimension,
        spawn_x: p.spawn_x,
        spawn_y: p.spawn_y,
        spawn_z: p.spawn_z,
        spawn_forced: p.spawn_forced,
        sleep_timer: fit(p.sleep_timer, "Player.sleep_timer")?,
        food_exhaustion_level: p.food_exhaustion_level,
        food_saturation_level: p.food_saturation_level,
        food_tick_timer: p.food_tick_timer,
        xp_level: p.xp_level,
        xp_p: p.xp_p,
        xp_total: p.xp_total,
        xp_seed: p.xp_seed,
        inventory: items_back(p.inventory)?,
        ender_items: items_back(p.ender_items)?,
        abilities: abilities_back(required(p.abilities, "Player.abilities")?),
        entered_nether_position: p.entered_nether_position.map(vector3d_back),
        root_vehicle,
        shoulder_entity_left: p.shoulder_entity_left.map(entity_back).transpose()?,
        shoulder_entity_right: p.shoulder_entity_right.map(entity_back).transpose()?,
        seen_credits: p.seen_credits,
        recipe_book: recipe_book_back(required(p.recipe_book, "Player.recipe_book")?),
    })
}

impl Messages for Players {
    type Message = PlayersMessage;

    fn populate(&self) -> PlayersMessage {
        PlayersMessage {
            players: self.players.iter().map(player).collect(),
        }
    }

    fn convert(message: PlayersMessage) -> Result<Players, CodecError> {
        let players = message
            .players
            .into_iter()
            .map(player_back)
            .collect::<Result<_, _>>()?;
        Ok(Players { players })
    }
}
