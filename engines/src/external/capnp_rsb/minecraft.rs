//! rsb's `minecraft_savedata` as Cap'n Proto structs (`engines/schemas/rsb_minecraft.capnp`):
//! the tuples and the uuids as groups, the options as unions of `none` and `some` (a custom
//! name is a text left null when there is none).

use super::rsb_minecraft_capnp::{
    abilities, entity, item, player, players, recipe_book, GameType as Mode,
};
use super::{build_list, checked, count, known, owned, read_each, read_list, text, Structs};
use crate::dataset::rsb::minecraft::{
    game_type_index, Abilities, Entity, GameType, Item, Player, Players, RecipeBook,
};
use serprof_api::CodecError;

/// Every game mode with its schema enumerant, at the index of both (the schema lists them in
/// the dataset's order).
pub const MODES: [(GameType, Mode); 4] = [
    (GameType::Survival, Mode::Survival),
    (GameType::Creative, Mode::Creative),
    (GameType::Adventure, Mode::Adventure),
    (GameType::Spectator, Mode::Spectator),
];

impl Structs for Players {
    type Root = players::Owned;

    fn build(&self, root: players::Builder<'_>) -> Result<(), CodecError> {
        let list = |n| root.init_players(n);
        build_list(&self.players, "Players.players", list, build_player)
    }

    fn read(root: players::Reader<'_>) -> Result<Players, CodecError> {
        let players = read_list(root.get_players(), read_player)?;
        Ok(Players { players })
    }

    fn digest(root: players::Reader<'_>) -> Result<u64, CodecError> {
        read_each(checked(root.get_players())?, |d, p| {
            d.int(game_type_index(mode(p.get_game_type(), "Player.gameType")?));
            Ok(())
        })
    }
}

/// A game mode read back, or a decode error naming `what`.
fn mode(m: Result<Mode, capnp::NotInSchema>, what: &str) -> Result<GameType, CodecError> {
    Ok(MODES[known(m, what)? as usize].0)
}

fn build_player(p: &Player, mut b: player::Builder<'_>) -> Result<(), CodecError> {
    b.set_game_type(MODES[game_type_index(p.game_type) as usize].1);
    b.set_previous_game_type(MODES[game_type_index(p.previous_game_type) as usize].1);
    b.set_score(p.score);
    b.set_dimension(text(&p.dimension, "Player.dimension")?);
    // rsb's serialize leaves this field unset (zero; the size is the same): the round trip
    // needs it.
    b.set_selected_item_slot(p.selected_item_slot);
    build_item(&p.selected_item, b.reborrow().init_selected_item())?;
    let mut spawn_dimension = b.reborrow().init_spawn_dimension();
    match &p.spawn_dimension {
        Some(d) => spawn_dimension.set_some(text(d, "Player.spawnDimension")?),
        None => spawn_dimension.set_none(()),
    }
    let mut spawn = b.reborrow().init_spawn();
    spawn.set_x(p.spawn_x);
    spawn.set_y(p.spawn_y);
    spawn.set_z(p.spawn_z);
    let mut spawn_forced = b.reborrow().init_spawn_forced();
    match p.spawn_forced {
        Some(f) => spawn_forced.set_some(f),
        None => spawn_forced.set_none(()),
    }
    b.set_sleep_timer(p.sleep_timer);
    b.set_food_exhaustion_level(p.food_exhaustion_level);
    b.set_food_saturation_level(p.food_saturation_level);
    b.set_food_tick_timer(p.food_tick_timer);
    b.set_xp_level(p.xp_level);
    b.set_xp_p(p.xp_p);
    b.set_xp_total(p.xp_total);
    b.set_xp_seed(p.xp_seed);
    // Each list's closure is passed where it is made: as an `FnOnce` it may return the list
    // it borrows from `b`.
    build_list(
        &p.inventory,
        "Player.inventory",
        |n| b.reborrow().init_inventory(n),
        build_item,
    )?;
    build_list(
        &p.ender_items,
        "Player.enderItems",
        |n| b.reborrow().init_ender_items(n),
        build_item,
    )?;
    build_abilities(p.abilities, b.reborrow().init_abilities());
    let mut nether = b.reborrow().init_entered_nether_position();
    match p.entered_nether_position {
        Some((x, y, z)) => {
            let mut at = nether.init_some();
            at.set_x(x);
            at.set_y(y);
            at.set_z(z);
        }
        None => nether.set_none(()),
    }
    let mut vehicle = b.reborrow().init_root_vehicle();
    match &p.root_vehicle {
        Some((uuid, e)) => {
            let mut some = vehicle.init_some();
            let mut u = some.reborrow().init_uuid();
            u.set_x0(uuid[0]);
            u.set_x1(uuid[1]);
            u.set_x2(uuid[2]);
            u.set_x3(uuid[3]);
            build_entity(e, some.init_entity())?;
        }
        None => vehicle.set_none(()),
    }
    let mut left = b.reborrow().init_shoulder_entity_left();
    match &p.shoulder_entity_left {
        Some(e) => build_entity(e, left.init_some())?,
        None => left.set_none(()),
    }
    let mut right = b.reborrow().init_shoulder_entity_right();
    match &p.shoulder_entity_right {
        Some(e) => build_entity(e, right.init_some())?,
        None => right.set_none(()),
    }
    b.set_seen_credits(p.seen_credits);
    build_recipe_book(&p.recipe_book, b.init_recipe_book())
}

fn build_item(it: &Item, mut b: item::Builder<'_>) -> Result<(), CodecError> {
    b.set_count(it.count);
    b.set_slot(it.slot);
    b.set_id(text(&it.id, "Item.id")?);
    Ok(())
}

fn build_abilities(a: Abilities, mut b: abilities::Builder<'_>) {
    b.set_walk_speed(a.walk_speed);
    b.set_fly_speed(a.fly_speed);
    b.set_may_fly(a.may_fly);
    b.set_flying(a.flying);
    b.set_invulnerable(a.invulnerable);
    b.set_may_build(a.may_build);
    b.set_instabuild(a.instabuild);
}

fn build_entity(e: &Entity, mut b: entity::Builder<'_>) -> Result<(), CodecError> {
    b.set_id(text(&e.id, "Entity.id")?);
    let mut pos = b.reborrow().init_pos();
    pos.set_x(e.pos.0);
    pos.set_y(e.pos.1);
    pos.set_z(e.pos.2);
    let mut motion = b.reborrow().init_motion();
    motion.set_x(e.motion.0);
    motion.set_y(e.motion.1);
    motion.set_z(e.motion.2);
    let mut rotation = b.reborrow().init_rotation();
    rotation.set_x(e.rotation.0);
    rotation.set_y(e.rotation.1);
    b.set_fall_distance(e.fall_distance);
    b.set_fire(e.fire);
    b.set_air(e.air);
    b.set_on_ground(e.on_ground);
    b.set_no_gravity(e.no_gravity);
    b.set_invulnerable(e.invulnerable);
    b.set_portal_cooldown(e.portal_cooldown);
    let mut uuid = b.reborrow().init_uuid();
    uuid.set_x0(e.uuid[0]);
    uuid.set_x1(e.uuid[1]);
    uuid.set_x2(e.uuid[2]);
    uuid.set_x3(e.uuid[3]);
    if let Some(name) = &e.custom_name {
        b.set_custom_name(text(name, "Entity.customName")?);
    }
    b.set_custom_name_visible(e.custom_name_visible);
    b.set_silent(e.silent);
    b.set_glowing(e.glowing);
    Ok(())
}

fn build_recipe_book(r: &RecipeBook, mut b: recipe_book::Builder<'_>) -> Result<(), CodecError> {
    let mut recipes = b
        .reborrow()
        .init_recipes(count(r.recipes.len(), 1, "RecipeBook.recipes")?);
    for (i, s) in (0..).zip(&r.recipes) {
        recipes.set(i, text(s, "RecipeBook.recipes")?);
    }
    let n = count(r.to_be_displayed.len(), 1, "RecipeBook.toBeDisplayed")?;
    let mut shown = b.reborrow().init_to_be_displayed(n);
    for (i, s) in (0..).zip(&r.to_be_displayed) {
        shown.set(i, text(s, "RecipeBook.toBeDisplayed")?);
    }
    b.set_is_filtering_craftable(r.is_filtering_craftable);
    b.set_is_gui_open(r.is_gui_open);
    b.set_is_furnace_filtering_craftable(r.is_furnace_filtering_craftable);
    b.set_is_furnace_gui_open(r.is_furnace_gui_open);
    b.set_is_blasting_furnace_filtering_craftable(r.is_blasting_furnace_filtering_craftable);
    b.set_is_blasting_furnace_gui_open(r.is_blasting_furnace_gui_open);
    b.set_is_smoker_filtering_craftable(r.is_smoker_filtering_craftable);
    b.set_is_smoker_gui_open(r.is_smoker_gui_open);
    Ok(())
}

fn read_player(r: player::Reader<'_>) -> Result<Player, CodecError> {
    use player::{
        entered_nether_position as nether, root_vehicle as vehicle, shoulder_entity_left as left,
        shoulder_entity_right as right, spawn_dimension, spawn_forced,
    };
    let spawn = r.get_spawn();
    let a = checked(r.get_abilities())?;
    Ok(Player {
        game_type: mode(r.get_game_type(), "Player.gameType")?,
        previous_game_type: mode(r.get_previous_game_type(), "Player.previousGameType")?,
        score: r.get_score(),
        dimension: owned(r.get_dimension())?,
        selected_item_slot: r.get_selected_item_slot(),
        selected_item: read_item(checked(r.get_selected_item())?)?,
        spawn_dimension: match known(r.get_spawn_dimension().which(), "Player.spawnDimension")? {
            spawn_dimension::None(()) => None,
            spawn_dimension::Some(d) => Some(owned(d)?),
        },
        spawn_x: spawn.get_x(),
        spawn_y: spawn.get_y(),
        spawn_z: spawn.get_z(),
        spawn_forced: match known(r.get_spawn_forced().which(), "Player.spawnForced")? {
            spawn_forced::None(()) => None,
            spawn_forced::Some(f) => Some(f),
        },
        sleep_timer: r.get_sleep_timer(),
        food_exhaustion_level: r.get_food_exhaustion_level(),
        food_saturation_level: r.get_food_saturation_level(),
        food_tick_timer: r.get_food_tick_timer(),
        xp_level: r.get_xp_level(),
        xp_p: r.get_xp_p(),
        xp_total: r.get_xp_total(),
        xp_seed: r.get_xp_seed(),
        inventory: read_list(r.get_inventory(), read_item)?,
        ender_items: read_list(r.get_ender_items(), read_item)?,
        abilities: Abilities {
            walk_speed: a.get_walk_speed(),
            fly_speed: a.get_fly_speed(),
            may_fly: a.get_may_fly(),
            flying: a.get_flying(),
            invulnerable: a.get_invulnerable(),
            may_build: a.get_may_build(),
            instabuild: a.get_instabuild(),
        },
        entered_nether_position: match known(
            r.get_entered_nether_position().which(),
            "Player.enteredNetherPosition",
        )? {
            nether::None(()) => None,
            nether::Some(at) => Some((at.get_x(), at.get_y(), at.get_z())),
        },
        root_vehicle: match known(r.get_root_vehicle().which(), "Player.rootVehicle")? {
            vehicle::None(()) => None,
            vehicle::Some(v) => {
                let u = v.get_uuid();
                let uuid = [u.get_x0(), u.get_x1(), u.get_x2(), u.get_x3()];
                Some((uuid, read_entity(v.get_entity())?))
            }
        },
        shoulder_entity_left: match known(
            r.get_shoulder_entity_left().which(),
            "Player.shoulderEntityLeft",
        )? {
            left::None(()) => None,
            left::Some(e) => Some(read_entity(e)?),
        },
        shoulder_entity_right: match known(
            r.get_shoulder_entity_right().which(),
            "Player.shoulderEntityRight",
        )? {
            right::None(()) => None,
            right::Some(e) => Some(read_entity(e)?),
        },
        seen_credits: r.get_seen_credits(),
        recipe_book: read_recipe_book(checked(r.get_recipe_book())?)?,
    })
}

fn read_item(r: item::Reader<'_>) -> Result<Item, CodecError> {
    Ok(Item {
        count: r.get_count(),
        slot: r.get_slot(),
        id: owned(r.get_id())?,
    })
}

fn read_entity(r: capnp::Result<entity::Reader<'_>>) -> Result<Entity, CodecError> {
    let r = checked(r)?;
    let (pos, motion, rotation, uuid) =
        (r.get_pos(), r.get_motion(), r.get_rotation(), r.get_uuid());
    Ok(Entity {
        id: owned(r.get_id())?,
        pos: (pos.get_x(), pos.get_y(), pos.get_z()),
        motion: (motion.get_x(), motion.get_y(), motion.get_z()),
        rotation: (rotation.get_x(), rotation.get_y()),
        fall_distance: r.get_fall_distance(),
        fire: r.get_fire(),
        air: r.get_air(),
        on_ground: r.get_on_ground(),
        no_gravity: r.get_no_gravity(),
        invulnerable: r.get_invulnerable(),
        portal_cooldown: r.get_portal_cooldown(),
        uuid: [uuid.get_x0(), uuid.get_x1(), uuid.get_x2(), uuid.get_x3()],
        custom_name: if r.has_custom_name() {
            Some(owned(r.get_custom_name())?)
        } else {
            None
        },
        custom_name_visible: r.get_custom_name_visible(),
        silent: r.get_silent(),
        glowing: r.get_glowing(),
    })
}

fn read_recipe_book(r: recipe_book::Reader<'_>) -> Result<RecipeBook, CodecError> {
    let texts = |list: capnp::Result<capnp::text_list::Reader<'_>>| {
        checked(list)?.iter().map(owned).collect::<Result<_, _>>()
    };
    Ok(RecipeBook {
        recipes: texts(r.get_recipes())?,
        to_be_displayed: texts(r.get_to_be_displayed())?,
        is_filtering_craftable: r.get_is_filtering_craftable(),
        is_gui_open: r.get_is_gui_open(),
        is_furnace_filtering_craftable: r.get_is_furnace_filtering_craftable(),
        is_furnace_gui_open: r.get_is_furnace_gui_open(),
        is_blasting_furnace_filtering_craftable: r.get_is_blasting_furnace_filtering_craftable(),
        is_blasting_furnace_gui_open: r.get_is_blasting_furnace_gui_open(),
        is_smoker_filtering_craftable: r.get_is_smoker_filtering_craftable(),
        is_smoker_gui_open: r.get_is_smoker_gui_open(),
    })
}
