//! rsb's `minecraft_savedata` as rust-protobuf's generated messages
//! (`engines/schemas/rsb_minecraft.proto`).

use super::{required, Messages};
use protobuf::{EnumOrUnknown, MessageField};

/// The code protobuf-codegen 3.7.2 generates from `engines/schemas/rsb_minecraft.proto`.
#[path = "../protobuf_gen/rsb_minecraft.rs"]
pub mod messages;

use messages::{
    Abilities, Entity, GameType, Item, Player, Players, RecipeBook, Uuid, Vector2f, Vector3d,
    Vehicle,
};

minecraft_messages! {
    players: Players, player: Player, item: Item,
    abilities: Abilities, vector3d: Vector3d, vector2f: Vector2f,
    uuid: Uuid, entity: Entity, recipe_book: RecipeBook,
    vehicle: Vehicle,
    some: MessageField::some, take: required,
    optional: MessageField::from, option: MessageField::into_option,
    enum_to: EnumOrUnknown::<GameType>::from_i32,
    enum_from: |e: EnumOrUnknown<GameType>| e.value(),
    rest: { ..Default::default() },
}
