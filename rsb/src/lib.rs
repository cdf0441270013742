//! The `rsb-*` studies: rust_serialization_benchmark's four datasets (djkoloski and others,
//! github.com/djkoloski/rust_serialization_benchmark, its README of 2026-08-21), one study
//! each, because serprof's study holds values of one type: `rsb-log`, `rsb-mesh`,
//! `rsb-minecraft` (rsb's `minecraft_savedata`) and `rsb-mk48`.
//!
//! Each dataset is one value, which every operation serializes or deserializes whole, as rsb
//! does. Per engine: `ENGINE.serialize` and `ENGINE.deserialize`; `ENGINE.borrow` for the serde
//! engines that read strings in place, on the two datasets with strings (rsb's `borrow`);
//! `rkyv.access` and `rkyv.validated-access` read in place the fields rsb's `read` reads (each
//! log's address, code and size; each triangle's normal; each player's game mode; each
//! update's score), unvalidated and after bytecheck's validation; `rkyv.update` changes in
//! place the fields rsb's update changes, unvalidated (the `update` module below);
//! `rkyv.unvalidated-deserialize` deserializes without validation (rsb's second rkyv
//! deserialize); `capnp.validated-access` reads the same fields through capnp's reader, which
//! checks each pointer it follows (rsb's "validated on-demand"), and `flatbuffers.access` and
//! `flatbuffers.validated-access` through flatbuffers' accessors, unvalidated and after its
//! verifier. Ratios are to postcard, an engine both benchmarks run on every dataset.
//!
//! The studies are opt-in ([`Study::opt_in`]): a `run` without `--study` leaves them out, so
//! the default run keeps its time; `serprof run --study rsb-log` measures one.

#![deny(missing_docs)]

use serprof_api::{Engine, Operation, Study, StudyOf};
use serprof_engines::dataset::rsb::{log, mesh, minecraft, mk48};
use serprof_engines::external;

/// Where the studies come from.
const SOURCE: &str = "djkoloski and others, rust_serialization_benchmark (its README of 2026-08-21, rsb commit 695b804b)";

/// The engine every ratio is taken against.
pub const BASELINE: &str = "postcard";

/// Every engine of the build on one dataset's type, in rsb's order where rsb has them: the
/// serde engines as serde writes the types (rsb's derives carry no serde attributes), then each
/// library's own derive.
macro_rules! engines {
    ($t:ty) => {{
        #[allow(unused_mut)]
        let mut all: Vec<Engine<$t>> = external::serde_engines::<$t>();
        #[cfg(feature = "bitcode")]
        all.push(external::bitcode::derive_engine::<$t>());
        #[cfg(feature = "borsh")]
        all.push(external::borsh::engine::<$t>());
        #[cfg(feature = "rkyv")]
        all.push(
            external::rkyv::engine_with_update::<$t>(read::archived, update::updates::<$t>())
                .unvalidated_deserialize()
                .call(
                    "rkyv::api::high::to_bytes_in, rkyv::access + rkyv::deserialize \
                     (unvalidated-deserialize: rkyv::access_unchecked + rkyv::deserialize; \
                     update: rkyv::access_unchecked_mut, then munge on its Seal)",
                ),
        );
        #[cfg(feature = "wincode")]
        all.push(external::wincode::engine::<$t>());
        #[cfg(feature = "nanoserde")]
        all.push(external::nanoserde::fresh_vec_engine::<$t>());
        #[cfg(feature = "msgpacker")]
        all.push(external::msgpacker::engine::<$t>());
        #[cfg(feature = "minicbor")]
        all.push(external::minicbor::engine::<$t>());
        #[cfg(feature = "musli")]
        all.push(external::musli::engine::<$t>());
        #[cfg(feature = "speedy")]
        all.push(external::speedy::engine::<$t>());
        #[cfg(feature = "simd-json")]
        all.push(external::simd_json::derive_engine::<$t>());
        all
    }};
}

/// The four studies, in rsb's order.
pub fn studies() -> Vec<Study> {
    vec![
        measured(
            Study::new("rsb-log", "rsb's log dataset: 10,000 HTTP request logs of many strings")
                .dataset_named("logs", log::logs),
            with_schemas(borrowing(with_tagged(engines!(log::Logs)))),
            log::read_digest,
        ),
        measured(
            Study::new("rsb-mesh", "rsb's mesh dataset: 125,000 triangles of f32 vectors")
                .dataset_named("mesh", mesh::mesh),
            with_schemas(with_tagged(engines!(mesh::Mesh))),
            mesh::read_digest,
        ),
        measured(
            Study::new(
                "rsb-minecraft",
                "rsb's minecraft_savedata dataset: 500 players with nested inventories, enums and options",
            )
            .dataset_named("players", minecraft::players),
            with_schemas(borrowing(with_tagged(engines!(minecraft::Players)))),
            minecraft::read_digest,
        ),
        measured(
            Study::new("rsb-mk48", "rsb's mk48 dataset: 1,000 game updates of small integers and floats")
                .dataset_named("updates", mk48::updates),
            with_schemas(with_tagged(engines!(mk48::Updates))),
            mk48::read_digest,
        ),
    ]
}

/// A study of one dataset: its engines on serialize and deserialize, the checks, the budget.
fn measured<T: serprof_api::Value>(
    study: StudyOf<T>,
    engines: Vec<Engine<T>>,
    digest: fn(&T) -> u64,
) -> Study {
    let study = study
        .source(SOURCE)
        .opt_in()
        // About forty configurations each, and one operation can take a tenth of a second
        // (serde_json on the mesh): the formats study's caps.
        .budget(serprof_engines::studies::formats::BUDGET)
        .engines(engines)
        .digest(digest)
        .operations([Operation::Serialize, Operation::Deserialize]);
    // The reference crate where this build has it (a measured program may name other engines).
    #[cfg(feature = "postcard")]
    let study = study.baseline(BASELINE);
    study.into()
}

/// `$name`: the trait `$bound` where `$feature` builds its engine, and a trait of every type
/// without it (so that one study builds with any set of engine features).
macro_rules! where_built {
    ($(#[$doc:meta])* $name:ident, $feature:literal, $($bound:ident)::+) => {
        $(#[$doc])*
        #[cfg(feature = $feature)]
        use $($bound)::+ as $name;
        $(#[$doc])*
        #[cfg(not(feature = $feature))]
        trait $name {}
        #[cfg(not(feature = $feature))]
        impl<T> $name for T {}
    };
}

where_built!(
    /// A dataset value with FlatBuffers tables (`external::flatbuffers_rsb`).
    FlatbuffersTables, "flatbuffers", external::flatbuffers_rsb::Tables
);
where_built!(
    /// A dataset value prost can write (the messages of `external::prost_rsb`).
    ProstMessages, "prost", external::prost_rsb::Messages
);
where_built!(
    /// A dataset value rust-protobuf can write (the generated messages of `external::protobuf_rsb`).
    ProtobufMessages, "protobuf", external::protobuf_rsb::Messages
);
where_built!(
    /// A dataset value that derives bilrost's `Message`.
    BilrostMessage, "bilrost", bilrost::OwnedMessage
);
where_built!(
    /// A dataset value capnp can write (the structs of `external::capnp_rsb`).
    CapnpStructs, "capnp", external::capnp_rsb::Structs
);

/// `engines`, prost, rust-protobuf and bilrost (each where it is built), the tagged formats rsb
/// runs on every dataset: prost and rust-protobuf through the dataset's messages (rsb's
/// `populate + encode` and `decode + convert`), bilrost through its derive on the dataset's own
/// types (`bilrost::Message::encode` and `OwnedMessage::decode`, and `bilrost-prepend`, its
/// `prepend`, on serialize only).
#[allow(unused_mut)]
fn with_tagged<T: serprof_api::Value + ProstMessages + ProtobufMessages + BilrostMessage>(
    mut engines: Vec<Engine<T>>,
) -> Vec<Engine<T>> {
    #[cfg(feature = "prost")]
    engines.push(external::prost_rsb::engine::<T>());
    #[cfg(feature = "protobuf")]
    engines.push(external::protobuf_rsb::engine::<T>());
    #[cfg(feature = "bilrost")]
    engines.extend([
        external::bilrost::engine::<T>(),
        external::bilrost::prepend_engine::<T>(),
    ]);
    engines
}

/// `engines`, capnp and flatbuffers (each where it is built), the schema formats rsb runs,
/// through the dataset's structs and tables and their generated code: each serializes as rsb
/// does (capnp into a reused scratch space, unpacked and, as `capnp-packed`, packed;
/// flatbuffers with a reused builder), reads every
/// field back (a deserialize rsb lacks: verification needs the value) and reads in place what
/// rsb's read reads (capnp's `validated-access`, validated on demand; flatbuffers' `access` and
/// `validated-access`, unvalidated and verified upfront).
#[allow(unused_mut)]
fn with_schemas<T: serprof_api::Value + CapnpStructs + FlatbuffersTables>(
    mut engines: Vec<Engine<T>>,
) -> Vec<Engine<T>> {
    #[cfg(feature = "capnp")]
    engines.extend([
        external::capnp_rsb::engine::<T>(),
        external::capnp_rsb::packed_engine::<T>(),
    ]);
    #[cfg(feature = "flatbuffers")]
    engines.push(external::flatbuffers_rsb::engine::<T>());
    engines
}

/// The engines that read strings in place, with their borrowed decode (rsb's `borrow`): the
/// serde engines postcard, rmp-serde, bincode and bincode 1, and the derives of bitcode,
/// wincode, minicbor, msgpacker and bilrost.
fn borrowing<T: serprof_engines::dataset::rsb::Borrowable + serprof_api::Value>(
    engines: Vec<Engine<T>>,
) -> Vec<Engine<T>> {
    use external::borrowed::serde;
    engines
        .into_iter()
        .map(|e| {
            let reader = match e.name() {
                #[cfg(feature = "postcard")]
                "postcard" => Some(external::borrowed::Reader::Postcard),
                #[cfg(feature = "rmp-serde")]
                "rmp-serde" => Some(external::borrowed::Reader::RmpSerde),
                #[cfg(feature = "bincode")]
                "bincode" => Some(external::borrowed::Reader::Bincode),
                #[cfg(feature = "bincode1")]
                "bincode1" => Some(external::borrowed::Reader::Bincode1),
                #[cfg(feature = "bitcode")]
                "bitcode-derive" => Some(external::borrowed::Reader::Bitcode),
                #[cfg(feature = "wincode")]
                "wincode" => Some(external::borrowed::Reader::Wincode),
                #[cfg(feature = "minicbor")]
                "minicbor" => Some(external::borrowed::Reader::Minicbor),
                #[cfg(feature = "msgpacker")]
                "msgpacker" => Some(external::borrowed::Reader::Msgpacker),
                #[cfg(feature = "bilrost")]
                "bilrost" => Some(external::borrowed::Reader::Bilrost),
                _ => None,
            };
            match reader {
                Some(r) => serde(e, r),
                None => e,
            }
        })
        .collect()
}

/// What rsb's read touches, read where it lies in rkyv's archive: the same digests as the
/// datasets' `read_digest`.
#[cfg(feature = "rkyv")]
mod read {
    use serprof_engines::dataset::rsb::{log, mesh, minecraft, mk48, read_each};

    /// Reads an archived dataset value in place.
    pub(super) trait Archived {
        /// The digest of what rsb's read touches.
        fn archived(&self) -> u64;
    }

    /// The digest of the archived `value`.
    pub(super) fn archived<A: Archived>(value: &A) -> u64 {
        value.archived()
    }

    impl Archived for log::ArchivedLogs {
        fn archived(&self) -> u64 {
            read_each(self.logs.as_slice(), |d, l| {
                let a = &l.address;
                d.int(i64::from(u32::from_le_bytes([a.x0, a.x1, a.x2, a.x3])));
                d.int(i64::from(l.code.to_native()));
                d.int(l.size.to_native() as i64);
            })
        }
    }

    impl Archived for mesh::ArchivedMesh {
        fn archived(&self) -> u64 {
            read_each(self.triangles.as_slice(), |d, t| {
                d.float(f64::from(t.normal.x.to_native()));
                d.float(f64::from(t.normal.y.to_native()));
                d.float(f64::from(t.normal.z.to_native()));
            })
        }
    }

    impl Archived for minecraft::ArchivedPlayers {
        fn archived(&self) -> u64 {
            use minecraft::{ArchivedGameType as A, GameType as G};
            read_each(self.players.as_slice(), |d, p| {
                let g = match p.game_type {
                    A::Survival => G::Survival,
                    A::Creative => G::Creative,
                    A::Adventure => G::Adventure,
                    A::Spectator => G::Spectator,
                };
                d.int(minecraft::game_type_index(g));
            })
        }
    }

    impl Archived for mk48::ArchivedUpdates {
        fn archived(&self) -> u64 {
            read_each(self.updates.as_slice(), |d, u| {
                d.int(i64::from(u.score.to_native()))
            })
        }
    }
}

/// What rsb's update changes (each log's address, code and size; each triangle's normal; each
/// player's game mode and spawn point; each update's score), changed where it lies in rkyv's
/// archive, through `munge` on rkyv's `Seal`, and the same change made to the value (the
/// datasets' `update`).
#[cfg(feature = "rkyv")]
mod update {
    use rkyv::munge::munge;
    use rkyv::seal::Seal;
    use rkyv::vec::ArchivedVec;

    use serprof_engines::dataset::rsb::{log, mesh, minecraft, mk48};
    use serprof_engines::external::rkyv::Updates;

    /// A dataset value whose archive rsb updates.
    pub(super) trait Updated: rkyv::Archive + Sized {
        /// rsb's update of the archive where it lies.
        fn archived(archived: Seal<'_, Self::Archived>);
        /// The same update made to the value.
        fn value(&mut self);
    }

    /// The update of `T`, for `external::rkyv::engine_with_update`.
    pub(super) fn updates<T: Updated + 'static>() -> Updates<T> {
        Updates::new(T::archived, T::value)
    }

    impl Updated for log::Logs {
        fn archived(archived: Seal<'_, log::ArchivedLogs>) {
            use log::{ArchivedAddress, ArchivedLog, ArchivedLogs};
            munge!(let ArchivedLogs { logs } = archived);
            let mut logs = ArchivedVec::as_slice_seal(logs);
            for i in 0..logs.len() {
                munge! {
                    let ArchivedLog {
                        address: ArchivedAddress { mut x0, mut x1, mut x2, mut x3 },
                        mut code,
                        mut size,
                        ..
                    } = logs.as_mut().index(i);
                }
                *x0 = 0;
                *x1 = 0;
                *x2 = 0;
                *x3 = 0;
                *code = 200.into();
                *size = 0.into();
            }
        }

        fn value(&mut self) {
            log::rsb_update(self)
        }
    }

    impl Updated for mesh::Mesh {
        fn archived(archived: Seal<'_, mesh::ArchivedMesh>) {
            use mesh::{ArchivedMesh, ArchivedTriangle, ArchivedVector3};
            munge!(let ArchivedMesh { triangles } = archived);
            let mut triangles = ArchivedVec::as_slice_seal(triangles);
            for i in 0..triangles.len() {
                munge! {
                    let ArchivedTriangle {
                        normal: ArchivedVector3 { mut x, mut y, mut z },
                        ..
                    } = triangles.as_mut().index(i);
                }
                *x = 0f32.into();
                *y = 0f32.into();
                *z = 0f32.into();
            }
        }

        fn value(&mut self) {
            mesh::rsb_update(self)
        }
    }

    impl Updated for minecraft::Players {
        fn archived(archived: Seal<'_, minecraft::ArchivedPlayers>) {
            use minecraft::{ArchivedGameType, ArchivedPlayer, ArchivedPlayers};
            munge!(let ArchivedPlayers { players } = archived);
            let mut players = ArchivedVec::as_slice_seal(players);
            for i in 0..players.len() {
                munge! {
                    let ArchivedPlayer {
                        mut game_type,
                        mut spawn_x,
                        mut spawn_y,
                        mut spawn_z,
                        ..
                    } = players.as_mut().index(i);
                }
                *game_type = ArchivedGameType::Survival;
                *spawn_x = 0.into();
                *spawn_y = 0.into();
                *spawn_z = 0.into();
            }
        }

        fn value(&mut self) {
            minecraft::rsb_update(self)
        }
    }

    impl Updated for mk48::Updates {
        fn archived(archived: Seal<'_, mk48::ArchivedUpdates>) {
            use mk48::{ArchivedUpdate, ArchivedUpdates};
            munge!(let ArchivedUpdates { updates } = archived);
            let mut updates = ArchivedVec::as_slice_seal(updates);
            for i in 0..updates.len() {
                munge!(let ArchivedUpdate { mut score, .. } = updates.as_mut().index(i));
                // Wrapping, as the value's update does (rsb's `*score *= 2` wraps in its
                // release build).
                *score = score.to_native().wrapping_mul(2).into();
            }
        }

        fn value(&mut self) {
            mk48::rsb_update(self)
        }
    }
}
