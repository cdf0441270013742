//! rsb's `minecraft_savedata` (its `minecraft_savedata.proto`: `Players`, `Player`, `Item`,
//! `Abilities`, `Vector3d`, `Vector2f`, `Uuid`, `Entity`, `RecipeBook`, `Vehicle` and the enum
//! `GameType`).

use crate::dataset::rsb::minecraft::GameType;
use serprof_api::CodecError;

/// Every game mode, in the order of its number in `minecraft_savedata.proto`, which is the
/// dataset's declaration order.
pub const GAME_TYPES: [GameType; 4] = [
    GameType::Survival,
    GameType::Creative,
    GameType::Adventure,
    GameType::Spectator,
];

/// A game mode's number in `minecraft_savedata.proto`: its index in the declaration order.
pub fn game_type_number(g: GameType) -> i32 {
    g as i32
}

/// The game mode of a number in `minecraft_savedata.proto`; any other number is an error
/// naming `what`.
pub fn game_type_of_number(n: i32, what: &str) -> Result<GameType, CodecError> {
    usize::try_from(n)
        .ok()
        .and_then(|i| GAME_TYPES.get(i).copied())
        .ok_or_else(|| CodecError::decode(format_args!("{what} {n} is no game type")))
}

/// The codec's `Messages` (resolved where the macro is called) for rsb's `Players`. The
/// arguments: the message types, then `some` and `take` (wrap a nested message; unwrap it,
/// given the field's name for the error), `optional` and `option` (a message field the schema
/// says is `optional`, from and to an `Option`), `enum_to` and `enum_from` (an enum field as
/// the codec holds it, from and to its number), then the tokens that end every struct literal
/// (`..Default::default()` or nothing). `some`, `take`, `optional` and `option` are used at
/// several message types: they must be paths of generic functions, not closures.
macro_rules! minecraft_messages {
    (
        players: $players:ident, player: $player:ident, item: $item:ident,
        abilities: $abilities:ident, vector3d: $vector3d:ident, vector2f: $vector2f:ident,
        uuid: $uuid:ident, entity: $entity:ident, recipe_book: $recipe_book:ident,
        vehicle: $vehicle:ident,
        some: $some:path, take: $take:path, optional: $optional:path, option: $option:path,
        enum_to: $enum_to:expr, enum_from: $enum_from:expr,
        rest: {$($rest:tt)*} $(,)?
    ) => {
        impl Messages for crate::dataset::rsb::minecraft::Players {
            type Message = $players;

            fn populate(&self) -> $players {
                use crate::dataset::rsb::minecraft as data;
                use crate::external::rsb_pb::minecraft::game_type_number;
                let game_type = |g| ($enum_to)(game_type_number(g));
                let item = |i: &data::Item| $item {
                    count: i.count.into(),
                    slot: i.slot.into(),
                    id: i.id.clone(),
                    $($rest)*
                };
                let vector3d = |(x, y, z): (f64, f64, f64)| $vector3d { x, y, z, $($rest)* };
                let uuid = |[x0, x1, x2, x3]: [u32; 4]| $uuid { x0, x1, x2, x3, $($rest)* };
                let entity = |e: &data::Entity| $entity {
                    id: e.id.clone(),
                    pos: $some(vector3d(e.pos)),
                    motion: $some(vector3d(e.motion)),
                    rotation: $some($vector2f {
                        x: e.rotation.0,
                        y: e.rotation.1,
                        $($rest)*
                    }),
                    fall_distance: e.fall_distance,
                    fire: e.fire.into(),
                    air: e.air.into(),
                    on_ground: e.on_ground,
                    no_gravity: e.no_gravity,
                    invulnerable: e.invulnerable,
                    portal_cooldown: e.portal_cooldown,
                    uuid: $some(uuid(e.uuid)),
                    custom_name: e.custom_name.clone(),
                    custom_name_visible: e.custom_name_visible,
                    silent: e.silent,
                    glowing: e.glowing,
                    $($rest)*
                };
                let player = |p: &data::Player| {
                    let a = &p.abilities;
                    let r = &p.recipe_book;
                    $player {
                        game_type: game_type(p.game_type),
                        previous_game_type: game_type(p.previous_game_type),
                        score: p.score,
                        dimension: p.dimension.clone(),
                        selected_item_slot: p.selected_item_slot,
                        selected_item: $some(item(&p.selected_item)),
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
                        abilities: $some($abilities {
                            walk_speed: a.walk_speed,
                            fly_speed: a.fly_speed,
                            may_fly: a.may_fly,
                            flying: a.flying,
                            invulnerable: a.invulnerable,
                            may_build: a.may_build,
                            instabuild: a.instabuild,
                            $($rest)*
                        }),
                        entered_nether_position: $optional(
                            p.entered_nether_position.map(vector3d),
                        ),
                        root_vehicle: $optional(p.root_vehicle.as_ref().map(|(id, e)| {
                            $vehicle {
                                uuid: $some(uuid(*id)),
                                entity: $some(entity(e)),
                                $($rest)*
                            }
                        })),
                        shoulder_entity_left: $optional(p.shoulder_entity_left.as_ref().map(entity)),
                        shoulder_entity_right: $optional(
                            p.shoulder_entity_right.as_ref().map(entity),
                        ),
                        seen_credits: p.seen_credits,
                        recipe_book: $some($recipe_book {
                            recipes: r.recipes.clone(),
                            to_be_displayed: r.to_be_displayed.clone(),
                            is_filtering_craftable: r.is_filtering_craftable,
                            is_gui_open: r.is_gui_open,
                            is_furnace_filtering_craftable: r.is_furnace_filtering_craftable,
                            is_furnace_gui_open: r.is_furnace_gui_open,
                            is_blasting_furnace_filtering_craftable: r
                                .is_blasting_furnace_filtering_craftable,
                            is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open,
                            is_smoker_filtering_craftable: r.is_smoker_filtering_craftable,
                            is_smoker_gui_open: r.is_smoker_gui_open,
                            $($rest)*
                        }),
                        $($rest)*
                    }
                };
                $players {
                    players: self.players.iter().map(player).collect(),
                    $($rest)*
                }
            }

            fn convert(
                message: $players,
            ) -> Result<crate::dataset::rsb::minecraft::Players, serprof_api::CodecError> {
                use crate::dataset::rsb::minecraft as data;
                use crate::external::rsb_pb::fit;
                use crate::external::rsb_pb::minecraft::game_type_of_number;
                use serprof_api::CodecError;
                let game_type = |g, what| game_type_of_number(($enum_from)(g), what);
                let item = |i: $item| {
                    Ok::<_, CodecError>(data::Item {
                        count: fit(i.count, "Item.count")?,
                        slot: fit(i.slot, "Item.slot")?,
                        id: i.id,
                    })
                };
                let items = |items: Vec<$item>| {
                    items.into_iter().map(item).collect::<Result<Vec<_>, CodecError>>()
                };
                let vector3d = |v: $vector3d| (v.x, v.y, v.z);
                let uuid = |u: $uuid| [u.x0, u.x1, u.x2, u.x3];
                let entity = |e: $entity| {
                    let rotation: $vector2f = $take(e.rotation, "Entity.rotation")?;
                    Ok::<_, CodecError>(data::Entity {
                        id: e.id,
                        pos: vector3d($take(e.pos, "Entity.pos")?),
                        motion: vector3d($take(e.motion, "Entity.motion")?),
                        rotation: (rotation.x, rotation.y),
                        fall_distance: e.fall_distance,
                        fire: fit(e.fire, "Entity.fire")?,
                        air: fit(e.air, "Entity.air")?,
                        on_ground: e.on_ground,
                        no_gravity: e.no_gravity,
                        invulnerable: e.invulnerable,
                        portal_cooldown: e.portal_cooldown,
                        uuid: uuid($take(e.uuid, "Entity.uuid")?),
                        custom_name: e.custom_name,
                        custom_name_visible: e.custom_name_visible,
                        silent: e.silent,
                        glowing: e.glowing,
                    })
                };
                let player = |p: $player| {
                    let root_vehicle = match $option(p.root_vehicle) {
                        Some(v) => Some((
                            uuid($take(v.uuid, "Vehicle.uuid")?),
                            entity($take(v.entity, "Vehicle.entity")?)?,
                        )),
                        None => None,
                    };
                    let a: $abilities = $take(p.abilities, "Player.abilities")?;
                    let r: $recipe_book = $take(p.recipe_book, "Player.recipe_book")?;
                    Ok::<_, CodecError>(data::Player {
                        game_type: game_type(p.game_type, "Player.game_type")?,
                        previous_game_type: game_type(
                            p.previous_game_type,
                            "Player.previous_game_type",
                        )?,
                        score: p.score,
                        dimension: p.dimension,
                        selected_item_slot: p.selected_item_slot,
                        selected_item: item($take(p.selected_item, "Player.selected_item")?)?,
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
                        inventory: items(p.inventory)?,
                        ender_items: items(p.ender_items)?,
                        abilities: data::Abilities {
                            walk_speed: a.walk_speed,
                            fly_speed: a.fly_speed,
                            may_fly: a.may_fly,
                            flying: a.flying,
                            invulnerable: a.invulnerable,
                            may_build: a.may_build,
                            instabuild: a.instabuild,
                        },
                        entered_nether_position: $option(p.entered_nether_position).map(vector3d),
                        root_vehicle,
                        shoulder_entity_left: $option(p.shoulder_entity_left)
                            .map(entity)
                            .transpose()?,
                        shoulder_entity_right: $option(p.shoulder_entity_right)
                            .map(entity)
                            .transpose()?,
                        seen_credits: p.seen_credits,
                        recipe_book: data::RecipeBook {
                            recipes: r.recipes,
                            to_be_displayed: r.to_be_displayed,
                            is_filtering_craftable: r.is_filtering_craftable,
                            is_gui_open: r.is_gui_open,
                            is_furnace_filtering_craftable: r.is_furnace_filtering_craftable,
                            is_furnace_gui_open: r.is_furnace_gui_open,
                            is_blasting_furnace_filtering_craftable: r
                                .is_blasting_furnace_filtering_craftable,
                            is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open,
                            is_smoker_filtering_craftable: r.is_smoker_filtering_craftable,
                            is_smoker_gui_open: r.is_smoker_gui_open,
                        },
                    })
                };
                let players = message
                    .players
                    .into_iter()
                    .map(player)
                    .collect::<Result<_, CodecError>>()?;
                Ok(data::Players { players })
            }
        }
    };
}
