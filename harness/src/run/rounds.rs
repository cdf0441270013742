//! The order of a lock-step schedule's samples: which configuration runs at each position of
//! a round ([`round_order`]) and which lane's child goes first ([`lane_order`]).

use crate::model::stats::SplitMix64;

/// The configurations of round `round` of child `k`, in their shuffled order.
pub(crate) fn round_order(configs: usize, seed: u64, k: usize, round: usize) -> Vec<usize> {
    let mix = (k as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03)
        ^ (round as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut rng = SplitMix64(seed ^ mix);
    let mut order: Vec<usize> = (0..configs).collect();
    for i in (1..configs).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

/// The lanes of a step, in the order they run: with two lanes taking turns, the first
/// alternates with the round and the position in it.
pub(crate) fn lane_order(lanes: usize, round: usize, position: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lanes).collect();
    if (round + position) % 2 == 1 {
        order.reverse();
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_are_seeded_permutations_and_lanes_alternate() {
        let a = round_order(7, 42, 0, 3);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..7).collect::<Vec<_>>());
        assert_eq!(a, round_order(7, 42, 0, 3), "the seed decides");
        assert_ne!(a, round_order(7, 42, 1, 3), "children differ");
        assert!(round_order(0, 1, 0, 0).is_empty());
        assert_eq!(lane_order(2, 0, 0), [0, 1]);
        assert_eq!(lane_order(2, 0, 1), [1, 0]);
        assert_eq!(lane_order(2, 1, 1), [0, 1]);
        assert_eq!(lane_order(1, 1, 0), [0]);
    }
}
