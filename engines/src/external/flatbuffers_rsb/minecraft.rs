//! rsb's `minecraft_savedata` as FlatBuffers tables (`engines/schemas/rsb_minecraft.fbs`, rsb's
//! `minecraft_savedata.fbs`, with one change).
//!
//! The change: a player's `spawn_forced` (`Option<bool>`) is an optional scalar here
//! (`bool = null`: `None` left out, `Some(false)` and `Some(true)` written), where rsb's schema
//! has a plain `bool` its builder writes as `unwrap_or(false)`, which leaves out `None` and
//! `Some(false)` alike; no other field tells them apart, so those bytes could not be read back
//! into the value. The dataset's 118 players with `Some(false)` cost 832 bytes.
//!
//! The payload is 845,000 bytes where rsb publishes 849,472; written with rsb's `spawn_forced`
//! it would be 844,168. The other 5,304 bytes are struct alignment: flatc 2.0.8 writes a struct
//! as a byte array (Rust alignment 1) without the `Push::alignment` that flatc 25's code gives
//! it, so flatbuffers 2.1.2 writes the schema's `Vector3d` (aligned to 8), `Uuid`, `Abilities`
//! and `Vector2f` (4) into the tables without the padding rsb's builder puts before them. The
//! generated accessors copy the bytes out, so the unaligned structs read back the same.

use flatbuffers::{ForwardsUOffset, Vector, WIPOffset};

use super::rsb_minecraft_generated as fb;
use super::{Builder, Tables};
use crate::dataset::rsb::minecraft::{
    game_type_index, Abilities, Entity, GameType, Item, Player, Players, RecipeBook,
};
use crate::model::Digest;
use serprof_api::CodecError;

/// A vector of `T`s, each a table or string the vector points to.
type Offsets<'a, T> = Vector<'a, ForwardsUOffset<T>>;

/// The game types in the schema's order: the enum's numbers are their indexes.
const GAME_TYPES: [GameType; 4] = [
    GameType::Survival,
    GameType::Creative,
    GameType::Adventure,
    GameType::Spectator,
];

/// The game type a number of the schema's enum stands for, or an error naming `what`.
fn game_type(g: fb::GameType, what: &str) -> Result<GameType, CodecError> {
    usize::try_from(g.0)
        .ok()
        .and_then(|i| GAME_TYPES.get(i).copied())
        .ok_or_else(|| CodecError::decode(format_args!("{what} {} is no game type", g.0)))
}

fn build_item(b: &mut Builder, i: &Item) -> WIPOffset<fb::Item<'static>> {
    let id = b.create_string(&i.id);
    let mut t = fb::ItemBuilder::new(b);
    t.add_count(i.count);
    t.add_slot(i.slot);
    t.add_id(id);
    t.finish()
}

fn build_items(b: &mut Builder, items: &[Item]) -> WIPOffset<Offsets<'static, fb::Item<'static>>> {
    let items: Vec<_> = items.iter().map(|i| build_item(b, i)).collect();
    b.create_vector(&items)
}

fn vector3d((x, y, z): (f64, f64, f64)) -> fb::Vector3d {
    fb::Vector3d::new(x, y, z)
}

fn build_entity(b: &mut Builder, e: &Entity) -> WIPOffset<fb::Entity<'static>> {
    let id = b.create_string(&e.id);
    let custom_name = e.custom_name.as_deref().map(|n| b.create_string(n));
    let pos = vector3d(e.pos);
    let motion = vector3d(e.motion);
    let rotation = fb::Vector2f::new(e.rotation.0, e.rotation.1);
    let [x0, x1, x2, x3] = e.uuid;
    let uuid = fb::Uuid::new(x0, x1, x2, x3);
    let mut t = fb::EntityBuilder::new(b);
    t.add_id(id);
    t.add_pos(&pos);
    t.add_motion(&motion);
    t.add_rotation(&rotation);
    t.add_fall_distance(e.fall_distance);
    t.add_fire(e.fire);
    t.add_air(e.air);
    t.add_on_ground(e.on_ground);
    t.add_no_gravity(e.no_gravity);
    t.add_invulnerable(e.invulnerable);
    t.add_portal_cooldown(e.portal_cooldown);
    t.add_uuid(&uuid);
    if let Some(name) = custom_name {
        t.add_custom_name(name);
    }
    t.add_custom_name_visible(e.custom_name_visible);
    t.add_silent(e.silent);
    t.add_glowing(e.glowing);
    t.finish()
}

fn build_strings(b: &mut Builder, strings: &[String]) -> WIPOffset<Offsets<'static, &'static str>> {
    let strings: Vec<_> = strings.iter().map(|s| b.create_string(s)).collect();
    b.create_vector(&strings)
}

fn build_recipe_book(b: &mut Builder, r: &RecipeBook) -> WIPOffset<fb::RecipeBook<'static>> {
    let recipes = build_strings(b, &r.recipes);
    let to_be_displayed = build_strings(b, &r.to_be_displayed);
    let mut t = fb::RecipeBookBuilder::new(b);
    t.add_recipes(recipes);
    t.add_to_be_displayed(to_be_displayed);
    t.add_is_filtering_craftable(r.is_filtering_craftable);
    t.add_is_gui_open(r.is_gui_open);
    t.add_is_furnace_filtering_craftable(r.is_furnace_filtering_craftable);
    t.add_is_furnace_gui_open(r.is_furnace_gui_open);
    t.add_is_blasting_furnace_filtering_craftable(r.is_blasting_furnace_filtering_craftable);
    t.add_is_blasting_furnace_gui_open(r.is_blasting_furnace_gui_open);
    t.add_is_smoker_filtering_craftable(r.is_smoker_filtering_craftable);
    t.add_is_smoker_gui_open(r.is_smoker_gui_open);
    t.finish()
}

/// A player's table: its strings, items, vehicle, shoulder entities and recipe book first, in
/// rsb's order, then the table's fields in the schema's order.
fn build_player(b: &mut Builder, p: &Player) -> WIPOffset<fb::Player<'static>> {
    let dimension = b.create_string(&p.dimension);
    let selected_item = build_item(b, &p.selected_item);
    let spawn_dimension = p.spawn_dimension.as_deref().map(|d| b.create_string(d));
    let inventory = build_items(b, &p.inventory);
    let ender_items = build_items(b, &p.ender_items);
    let a = p.abilities;
    let abilities = fb::Abilities::new(
        a.walk_speed,
        a.fly_speed,
        a.may_fly,
        a.flying,
        a.invulnerable,
        a.may_build,
        a.instabuild,
    );
    let entered_nether_position = p.entered_nether_position.map(vector3d);
    let root_vehicle = p.root_vehicle.as_ref().map(|([p0, p1, p2, p3], entity)| {
        let entity = Some(build_entity(b, entity));
        let args = fb::VehicleArgs {
            param_0: *p0,
            param_1: *p1,
            param_2: *p2,
            param_3: *p3,
            entity,
        };
        fb::Vehicle::create(b, &args)
    });
    let left = p.shoulder_entity_left.as_ref().map(|e| build_entity(b, e));
    let right = p.shoulder_entity_right.as_ref().map(|e| build_entity(b, e));
    let recipe_book = build_recipe_book(b, &p.recipe_book);
    let mut t = fb::PlayerBuilder::new(b);
    t.add_game_type(fb::GameType(p.game_type as i8));
    t.add_previous_game_type(fb::GameType(p.previous_game_type as i8));
    t.add_score(p.score);
    t.add_dimension(dimension);
    t.add_selected_item_slot(p.selected_item_slot);
    t.add_selected_item(selected_item);
    if let Some(d) = spawn_dimension {
        t.add_spawn_dimension(d);
    }
    t.add_spawn_x(p.spawn_x);
    t.add_spawn_y(p.spawn_y);
    t.add_spawn_z(p.spawn_z);
    if let Some(forced) = p.spawn_forced {
        t.add_spawn_forced(forced);
    }
    t.add_sleep_timer(p.sleep_timer);
    t.add_food_exhaustion_level(p.food_exhaustion_level);
    t.add_food_saturation_level(p.food_saturation_level);
    t.add_food_tick_timer(p.food_tick_timer);
    t.add_xp_level(p.xp_level);
    t.add_xp_p(p.xp_p);
    t.add_xp_total(p.xp_total);
    t.add_xp_seed(p.xp_seed);
    t.add_inventory(inventory);
    t.add_ender_items(ender_items);
    t.add_abilities(&abilities);
    if let Some(position) = &entered_nether_position {
        t.add_entered_nether_position(position);
    }
    if let Some(vehicle) = root_vehicle {
        t.add_root_vehicle(vehicle);
    }
    if let Some(entity) = left {
        t.add_shoulder_entity_left(entity);
    }
    if let Some(entity) = right {
        t.add_shoulder_entity_right(entity);
    }
    t.add_seen_credits(p.seen_credits);
    t.add_recipe_book(recipe_book);
    t.finish()
}

fn read_item(i: fb::Item<'_>) -> Item {
    Item {
        count: i.count(),
        slot: i.slot(),
        id: i.id().to_owned(),
    }
}

fn tuple3d(v: &fb::Vector3d) -> (f64, f64, f64) {
    (v.x(), v.y(), v.z())
}

fn read_entity(e: fb::Entity<'_>) -> Entity {
    let u = e.uuid();
    Entity {
        id: e.id().to_owned(),
        pos: tuple3d(e.pos()),
        motion: tuple3d(e.motion()),
        rotation: (e.rotation().x(), e.rotation().y()),
        fall_distance: e.fall_distance(),
        fire: e.fire(),
        air: e.air(),
        on_ground: e.on_ground(),
        no_gravity: e.no_gravity(),
        invulnerable: e.invulnerable(),
        portal_cooldown: e.portal_cooldown(),
        uuid: [u.x0(), u.x1(), u.x2(), u.x3()],
        custom_name: e.custom_name().map(str::to_owned),
        custom_name_visible: e.custom_name_visible(),
        silent: e.silent(),
        glowing: e.glowing(),
    }
}

fn read_recipe_book(r: fb::RecipeBook<'_>) -> RecipeBook {
    let strings = |v: Offsets<'_, &str>| v.iter().map(str::to_owned).collect();
    RecipeBook {
        recipes: strings(r.recipes()),
        to_be_displayed: strings(r.to_be_displayed()),
        is_filtering_craftable: r.is_filtering_craftable(),
        is_gui_open: r.is_gui_open(),
        is_furnace_filtering_craftable: r.is_furnace_filtering_craftable(),
        is_furnace_gui_open: r.is_furnace_gui_open(),
        is_blasting_furnace_filtering_craftable: r.is_blasting_furnace_filtering_craftable(),
        is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open(),
        is_smoker_filtering_craftable: r.is_smoker_filtering_craftable(),
        is_smoker_gui_open: r.is_smoker_gui_open(),
    }
}

fn read_player(p: fb::Player<'_>) -> Result<Player, CodecError> {
    let a = p.abilities();
    Ok(Player {
        game_type: game_type(p.game_type(), "Player.game_type")?,
        previous_game_type: game_type(p.previous_game_type(), "Player.previous_game_type")?,
        score: p.score(),
        dimension: p.dimension().to_owned(),
        selected_item_slot: p.selected_item_slot(),
        selected_item: read_item(p.selected_item()),
        spawn_dimension: p.spawn_dimension().map(str::to_owned),
        spawn_x: p.spawn_x(),
        spawn_y: p.spawn_y(),
        spawn_z: p.spawn_z(),
        spawn_forced: p.spawn_forced(),
        sleep_timer: p.sleep_timer(),
        food_exhaustion_level: p.food_exhaustion_level(),
        food_saturation_level: p.food_saturation_level(),
        food_tick_timer: p.food_tick_timer(),
        xp_level: p.xp_level(),
        xp_p: p.xp_p(),
        xp_total: p.xp_total(),
        xp_seed: p.xp_seed(),
        inventory: p.inventory().iter().map(read_item).collect(),
        ender_items: p.ender_items().iter().map(read_item).collect(),
        abilities: Abilities {
            walk_speed: a.walk_speed(),
            fly_speed: a.fly_speed(),
            may_fly: a.may_fly(),
            flying: a.flying(),
            invulnerable: a.invulnerable(),
            may_build: a.may_build(),
            instabuild: a.instabuild(),
        },
        entered_nether_position: p.entered_nether_position().map(tuple3d),
        root_vehicle: p.root_vehicle().map(|v| {
            let params = [v.param_0(), v.param_1(), v.param_2(), v.param_3()];
            (params, read_entity(v.entity()))
        }),
        shoulder_entity_left: p.shoulder_entity_left().map(read_entity),
        shoulder_entity_right: p.shoulder_entity_right().map(read_entity),
        seen_credits: p.seen_credits(),
        recipe_book: read_recipe_book(p.recipe_book()),
    })
}

impl Tables for Players {
    type Root<'a> = fb::Players<'a>;

    fn build(&self, b: &mut Builder) -> Result<WIPOffset<fb::Players<'static>>, CodecError> {
        let players: Vec<_> = self.players.iter().map(|p| build_player(b, p)).collect();
        let players = b.create_vector(&players);
        let mut t = fb::PlayersBuilder::new(b);
        t.add_players(players);
        Ok(t.finish())
    }

    fn read(root: fb::Players<'_>) -> Result<Players, CodecError> {
        let players = root
            .players()
            .iter()
            .map(read_player)
            .collect::<Result<_, _>>()?;
        Ok(Players { players })
    }

    /// Each player's game type (rsb's read), as `minecraft::read_digest` digests it.
    fn read_in_place(root: fb::Players<'_>) -> Result<u64, CodecError> {
        let mut d = Digest::default();
        for p in root.players() {
            d.int(game_type_index(game_type(
                p.game_type(),
                "Player.game_type",
            )?));
        }
        Ok(d.finish())
    }
}
