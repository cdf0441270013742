# rust_serialization_benchmark's minecraft_savedata dataset (engines/src/dataset/rsb/minecraft.rs)
# as Cap'n Proto structs, with the fields, types, order, groups and unions of rsb's
# minecraft_savedata.capnp (the layout, so the bytes, follow from them), for the capnp engine of
# the rsb-minecraft study. Generated Rust: engines/src/external/capnp_rsb/rsb_minecraft_capnp.rs
# (scripts/regenerate-schemas).
@0x92a17b0000e9e9ce;

enum GameType {
  survival @0;
  creative @1;
  adventure @2;
  spectator @3;
}

struct Item {
  count @0 :Int8;
  slot @1 :UInt8;
  id @2 :Text;
}

struct Abilities {
  walkSpeed @0 :Float32;
  flySpeed @1 :Float32;
  mayFly @2 :Bool;
  flying @3 :Bool;
  invulnerable @4 :Bool;
  mayBuild @5 :Bool;
  instabuild @6 :Bool;
}

struct Entity {
  id @0 :Text;
  pos :group {                   # the Rust tuple (f64, f64, f64)
    x @1 :Float64;
    y @2 :Float64;
    z @3 :Float64;
  }
  motion :group {                # (f64, f64, f64)
    x @4 :Float64;
    y @5 :Float64;
    z @6 :Float64;
  }
  rotation :group {              # (f32, f32)
    x @7 :Float32;
    y @8 :Float32;
  }
  fallDistance @9 :Float32;
  fire @10 :UInt16;
  air @11 :UInt16;
  onGround @12 :Bool;
  noGravity @13 :Bool;
  invulnerable @14 :Bool;
  portalCooldown @15 :Int32;
  uuid :group {                  # [u32; 4]
    x0 @16 :UInt32;
    x1 @17 :UInt32;
    x2 @18 :UInt32;
    x3 @19 :UInt32;
  }
  customName @20 :Text;          # null when None
  customNameVisible @21 :Bool;
  silent @22 :Bool;
  glowing @23 :Bool;
}

struct RecipeBook {
  recipes @0 :List(Text);
  toBeDisplayed @1 :List(Text);
  isFilteringCraftable @2 :Bool;
  isGuiOpen @3 :Bool;
  isFurnaceFilteringCraftable @4 :Bool;
  isFurnaceGuiOpen @5 :Bool;
  isBlastingFurnaceFilteringCraftable @6 :Bool;
  isBlastingFurnaceGuiOpen @7 :Bool;
  isSmokerFilteringCraftable @8 :Bool;
  isSmokerGuiOpen @9 :Bool;
}

struct Player {
  gameType @0 :GameType;
  previousGameType @1 :GameType;
  score @2 :Int64;
  dimension @3 :Text;
  selectedItemSlot @4 :UInt32;
  selectedItem @5 :Item;
  spawnDimension :union {        # Option<String>
    none @6 :Void;
    some @7 :Text;
  }
  spawn :group {                 # spawn_x, spawn_y, spawn_z
    x @8 :Int64;
    y @9 :Int64;
    z @10 :Int64;
  }
  spawnForced :union {           # Option<bool>
    none @11 :Void;
    some @12 :Bool;
  }
  sleepTimer @13 :UInt16;
  foodExhaustionLevel @14 :Float32;
  foodSaturationLevel @15 :Float32;
  foodTickTimer @16 :UInt32;
  xpLevel @17 :UInt32;
  xpP @18 :Float32;
  xpTotal @19 :Int32;
  xpSeed @20 :Int32;
  inventory @21 :List(Item);
  enderItems @22 :List(Item);
  abilities @23 :Abilities;
  enteredNetherPosition :union { # Option<(f64, f64, f64)>
    none @24 :Void;
    some :group {
      x @25 :Float64;
      y @26 :Float64;
      z @27 :Float64;
    }
  }
  rootVehicle :union {           # Option<([u32; 4], Entity)>
    none @28 :Void;
    some :group {
      uuid :group {
        x0 @29 :UInt32;
        x1 @30 :UInt32;
        x2 @31 :UInt32;
        x3 @32 :UInt32;
      }
      entity @33 :Entity;
    }
  }
  shoulderEntityLeft :union {    # Option<Entity>
    none @34 :Void;
    some @35 :Entity;
  }
  shoulderEntityRight :union {   # Option<Entity>
    none @36 :Void;
    some @37 :Entity;
  }
  seenCredits @38 :Bool;
  recipeBook @39 :RecipeBook;
}

struct Players {
  players @0 :List(Player);
}
