//! rsb's `mk48` dataset: 1,000 updates of the game mk48.io, each dozens of contacts (ships and
//! weapons) of small integers and floats, and a few terrain chunks.

use rand::distributions::WeightedIndex;
use rand::Rng;

use super::{many, rsb_types};

/// How many updates the dataset holds.
pub const UPDATES: usize = 1_000;

rsb_types! {
    /// A kind of ship.
    #[derive(Copy, Eq)]
    #[cfg_attr(feature = "wincode", wincode(tag_encoding = "u8"))]
    #[cfg_attr(feature = "bilrost", derive(bilrost::Enumeration))]
    pub enum EntityType {
        /// Arleigh Burke.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(0))]
        ArleighBurke,
        /// Bismarck.
        #[cfg_attr(feature = "minicbor", n(1))]
        #[cfg_attr(feature = "bilrost", bilrost(1))]
        Bismarck,
        /// Clemenceau.
        #[cfg_attr(feature = "minicbor", n(2))]
        #[cfg_attr(feature = "bilrost", bilrost(2))]
        Clemenceau,
        /// Fletcher.
        #[cfg_attr(feature = "minicbor", n(3))]
        #[cfg_attr(feature = "bilrost", bilrost(3))]
        Fletcher,
        /// G-5.
        #[cfg_attr(feature = "minicbor", n(4))]
        #[cfg_attr(feature = "bilrost", bilrost(4))]
        G5,
        /// Iowa.
        #[cfg_attr(feature = "minicbor", n(5))]
        #[cfg_attr(feature = "bilrost", bilrost(5))]
        Iowa,
        /// Kolkata.
        #[cfg_attr(feature = "minicbor", n(6))]
        #[cfg_attr(feature = "bilrost", bilrost(6))]
        Kolkata,
        /// Osa.
        #[cfg_attr(feature = "minicbor", n(7))]
        #[cfg_attr(feature = "bilrost", bilrost(7))]
        Osa,
        /// Yasen.
        #[cfg_attr(feature = "minicbor", n(8))]
        #[cfg_attr(feature = "bilrost", bilrost(8))]
        Yasen,
        /// Zubr.
        #[cfg_attr(feature = "minicbor", n(9))]
        #[cfg_attr(feature = "bilrost", bilrost(9))]
        Zubr,
    }

    /// Where a contact is and how it moves.
    #[derive(Copy)]
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Transform {
        /// Altitude (below zero: submerged).
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(varint)))]
        pub altitude: i8,
        /// Heading.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub angle: u16,
        /// Position.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub position: (f32, f32),
        /// Speed.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub velocity: i16,
    }

    /// Where a contact is steered.
    #[derive(Copy)]
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Guidance {
        /// Heading.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub angle: u16,
        /// Dives.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub submerge: bool,
        /// Speed.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub velocity: i16,
    }

    /// A ship or weapon a player sees.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Contact {
        /// Damage taken.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(varint)))]
        pub damage: u8,
        /// Its id.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub entity_id: u32,
        /// What it is, when visible.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub entity_type: Option<EntityType>,
        /// Its steering.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub guidance: Guidance,
        /// Its player, when visible.
        #[cfg_attr(feature = "minicbor", n(4))]
        pub player_id: Option<u16>,
        /// Which weapons are loaded.
        #[cfg_attr(feature = "minicbor", n(5))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub reloads: Vec<bool>,
        /// Where it is.
        #[cfg_attr(feature = "minicbor", n(6))]
        pub transform: Transform,
        /// Its turrets' headings.
        #[cfg_attr(feature = "minicbor", n(7))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub turret_angles: Vec<u16>,
    }

    /// A chunk of terrain sent again.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct TerrainUpdate {
        /// Which chunk.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding = "(varint, varint)"))]
        pub chunk_id: (i8, i8),
        /// Its compressed bytes (a byte array: msgpacker writes it as `bin`, as rsb has it).
        #[cfg_attr(feature = "minicbor", n(1))]
        #[cfg_attr(feature = "msgpacker", msgpacker(binary))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding = "plainbytes"))]
        pub data: Vec<u8>,
    }

    /// One update a server sends a player.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Update {
        /// What the player sees.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub contacts: Vec<Contact>,
        /// The player's score.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub score: u32,
        /// The world's radius.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub world_radius: f32,
        /// Terrain sent again.
        #[cfg_attr(feature = "minicbor", n(3))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub terrain_updates: Vec<TerrainUpdate>,
    }

    /// The dataset: every update.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Updates {
        /// The updates.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub updates: Vec<Update>,
    }
}

/// Every kind, in declaration order, with how often it shows (the weights of the draw), its
/// turrets and its weapons.
const KINDS: [(EntityType, f32, usize, usize); 10] = [
    (EntityType::ArleighBurke, 2.14, 1, 20),
    (EntityType::Bismarck, 0.52, 4, 10),
    (EntityType::Clemenceau, 0.97, 4, 16),
    (EntityType::Fletcher, 1.46, 4, 18),
    (EntityType::G5, 13.16, 0, 2),
    (EntityType::Iowa, 1.55, 3, 28),
    (EntityType::Kolkata, 0.83, 1, 15),
    (EntityType::Osa, 7.25, 2, 6),
    (EntityType::Yasen, 4.06, 0, 14),
    (EntityType::Zubr, 12.92, 3, 11),
];

impl EntityType {
    /// Its row of [`KINDS`].
    fn kind(self) -> &'static (EntityType, f32, usize, usize) {
        &KINDS[self as usize]
    }

    /// A submarine.
    fn is_sub(self) -> bool {
        self == EntityType::Yasen
    }
}

/// A kind, weighted by how often each shows.
fn kind<R: Rng>(rng: &mut R, weights: &WeightedIndex<f32>) -> EntityType {
    KINDS[rng.sample(weights)].0
}

/// Whether a contact of `kind` dives: only submarines, nine times in ten (no draw otherwise).
fn dives<R: Rng>(rng: &mut R, kind: EntityType) -> bool {
    kind.is_sub() && rng.gen_bool(0.9)
}

/// A speed: forward most of the time, stopped a tenth, backward slowly a tenth.
fn speed<R: Rng>(rng: &mut R) -> i16 {
    let (min, max, reverse): (i16, i16, i16) = (140, 900, 4);
    let roll: i32 = rng.gen_range(0..100);
    if roll < 80 {
        rng.gen_range(min..max)
    } else if roll < 90 {
        0
    } else {
        rng.gen_range(-max / reverse..-min / reverse)
    }
}

fn transform<R: Rng>(rng: &mut R, kind: EntityType) -> Transform {
    let altitude: i8 = if dives(rng, kind) {
        rng.gen_range(-120..-35)
    } else {
        0
    };
    let angle = rng.gen();
    let range = 750.0f32;
    let position = (rng.gen_range(-range..range), rng.gen_range(-range..range));
    Transform {
        altitude,
        angle,
        position,
        velocity: speed(rng),
    }
}

fn contact<R: Rng>(rng: &mut R, players: u16, weights: &WeightedIndex<f32>) -> Contact {
    let entities = u32::from(players) * 20;
    let kind = kind(rng, weights);
    let (_, _, turrets, weapons) = *kind.kind();
    let visible = rng.gen_bool(0.7);
    let damage: u8 = if visible && rng.gen_bool(0.6) {
        0
    } else {
        rng.gen_range(0..200)
    };
    let entity_id = rng.gen_range(0..entities);
    let guidance = Guidance {
        angle: rng.gen(),
        submerge: dives(rng, kind),
        velocity: speed(rng),
    };
    let player_id = visible.then(|| rng.gen_range(0..players));
    let reloads = if visible {
        let loaded: f64 = rng.gen_range(0.0..1.0);
        (0..weapons).map(|_| rng.gen_bool(loaded)).collect()
    } else {
        Vec::new()
    };
    let transform = transform(rng, kind);
    let turret_angles = if visible {
        let base: u16 = rng.gen();
        (0..turrets)
            .map(|_| {
                if rng.gen_bool(0.75) {
                    let off: i16 = rng.gen_range(-200..200);
                    (base as i16).wrapping_add(off) as u16
                } else {
                    rng.gen()
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    Contact {
        damage,
        entity_id,
        entity_type: visible.then_some(kind),
        guidance,
        player_id,
        reloads,
        transform,
        turret_angles,
    }
}

fn terrain<R: Rng>(rng: &mut R, radius: i8) -> TerrainUpdate {
    let fresh = rng.gen_bool(0.02);
    let chunk_id = (
        rng.gen_range(-radius..radius),
        rng.gen_range(-radius..radius),
    );
    let len = if fresh { 900..1100 } else { 3..9 };
    TerrainUpdate {
        chunk_id,
        data: many(rng, len, |rng| rng.gen()),
    }
}

fn update<R: Rng>(rng: &mut R, weights: &WeightedIndex<f32>) -> Update {
    let players: i32 = rng.gen_range(200..400);
    let players = players as u16;
    let jitter: f32 = rng.gen_range(-50.0..50.0);
    let world_radius = (f32::from(players) * 15000.0).sqrt() + jitter;
    let terrain_radius = (world_radius / 1600.0).ceil() as i8;
    let contacts: i32 = rng.gen_range(20..40);
    let contacts = (0..contacts)
        .map(|_| contact(rng, players, weights))
        .collect();
    let climb: f32 = rng.gen();
    let bonus: u32 = rng.gen_range(0..50);
    let score = (climb.powi(4) * 5000.0) as u32 + bonus;
    let chunks: i32 = rng.gen_range(3..10);
    Update {
        contacts,
        score,
        world_radius,
        terrain_updates: (0..chunks).map(|_| terrain(rng, terrain_radius)).collect(),
    }
}

/// The dataset, one value: rsb's 1,000 updates.
pub fn updates() -> Vec<Updates> {
    let mut rng = super::rng();
    // The weights are constants: a weighted index of them cannot fail.
    let weights = match WeightedIndex::new(KINDS.map(|k| k.1)) {
        Ok(w) => w,
        Err(e) => unreachable!("constant weights: {e}"),
    };
    vec![Updates {
        updates: many(&mut rng, UPDATES..UPDATES + 1, |rng| update(rng, &weights)),
    }]
}

/// What rsb's read of an archive of updates touches (each update's score), as the access rows'
/// digest.
pub fn read_digest(updates: &Updates) -> u64 {
    super::read_each(&updates.updates, |d, u| d.int(i64::from(u.score)))
}

/// rsb's update of an archive of updates, made to the value: every score doubled, wrapping
/// as the archive's little-endian `u32` does (the `rkyv.update` rows' check).
pub fn rsb_update(updates: &mut Updates) {
    for u in &mut updates.updates {
        u.score = u.score.wrapping_mul(2);
    }
}
