//! `external::flatbuffers_rsb::minecraft`.

use crate::external_flatbuffers_rsb::{encoded, read, survives_damage};
use serprof_engines::dataset::rsb::minecraft;
use serprof_engines::dataset::rsb::minecraft::Players;

#[test]
fn spawn_forced_comes_back_as_it_was() {
    let mut players = minecraft::players().remove(0);
    let all = encoded(&players).len();
    let (decoded, access) = read::<Players>(&encoded(&players));
    assert_eq!(decoded.as_ref(), Ok(&players));
    assert_eq!(access, Ok(minecraft::read_digest(&players)));
    // rsb's bytes of the spawn points, with this crate's builder: Some(false) left out.
    let falses = players
        .players
        .iter()
        .filter(|p| p.spawn_forced == Some(false))
        .count();
    for p in &mut players.players {
        p.spawn_forced = p.spawn_forced.filter(|forced| *forced);
    }
    let rsb = encoded(&players).len();
    // The module's doc gives these numbers.
    assert_eq!((all, rsb, falses), (845_000, 844_168, 118));
}

#[test]
fn damaged_players_are_errors_or_values_never_panics() {
    let mut players = minecraft::players().remove(0);
    players.players.truncate(1);
    survives_damage(&players);
}
