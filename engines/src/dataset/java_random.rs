//! A port of `java.util.Random`: Java's documented 48-bit linear congruential generator
//! (<https://docs.oracle.com/javase/8/docs/api/java/util/Random.html>).

const MULTIPLIER: u64 = 0x5DEE_CE66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

/// `java.util.Random`, bit for bit.
#[derive(Debug, Clone)]
pub struct JavaRandom {
    state: u64,
}

impl JavaRandom {
    /// `new Random(seed)`.
    pub fn new(seed: i64) -> JavaRandom {
        JavaRandom {
            state: (seed as u64 ^ MULTIPLIER) & MASK,
        }
    }

    /// `next(bits)`: the top `bits` bits of the next state, as a signed 32-bit integer.
    pub fn next(&mut self, bits: u32) -> i32 {
        self.state = (self.state.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND)) & MASK;
        (self.state >> (48 - bits)) as i32
    }

    /// `nextInt()`.
    pub fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextInt(bound)`, with Java's rejection loop for bounds that are not powers of two.
    ///
    /// # Panics
    /// If `bound <= 0`, as Java throws `IllegalArgumentException`.
    pub fn next_int_bounded(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextBoolean()`.
    pub fn next_boolean(&mut self) -> bool {
        self.next(1) != 0
    }

    /// `nextBytes(buf)`: one `nextInt()` per group of up to four bytes, low byte first.
    pub fn next_bytes(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(4) {
            let mut rnd = self.next_int();
            for b in chunk {
                *b = rnd as u8;
                rnd >>= 8;
            }
        }
    }

    /// `list[nextInt(list.len())]`.
    pub fn pick<T: Copy>(&mut self, list: &[T]) -> T {
        list[self.next_int_bounded(list.len() as i32) as usize]
    }
}
