//! rsb's `mesh` dataset: one mesh of 125,000 triangles, each three vertices and a normal of
//! three `f32`s.

use rand::Rng;

use super::rsb_types;

/// How many triangles the mesh holds.
pub const TRIANGLES: usize = 125_000;

rsb_types! {
    /// A point or direction in space.
    #[derive(Copy)]
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Vector3 {
        /// x.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub x: f32,
        /// y.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub y: f32,
        /// z.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub z: f32,
    }

    /// A triangle: its three corners and its normal.
    #[derive(Copy)]
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Triangle {
        /// First corner.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub v0: Vector3,
        /// Second corner.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub v1: Vector3,
        /// Third corner.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub v2: Vector3,
        /// The normal.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub normal: Vector3,
    }

    /// The dataset: one mesh.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Mesh {
        /// Its triangles. wincode's default configuration refuses a collection over 4 MiB,
        /// which these 6 MB are: the length is read without that limit, as rsb reads it.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        #[cfg_attr(
            feature = "wincode",
            wincode(with = "wincode::containers::Vec::<_, wincode::len::BincodeLen<{ usize::MAX }>>")
        )]
        pub triangles: Vec<Triangle>,
    }
}

/// A vector of three standard `f32` draws (`[0, 1)`).
fn vector<R: Rng>(rng: &mut R) -> Vector3 {
    Vector3 {
        x: rng.gen(),
        y: rng.gen(),
        z: rng.gen(),
    }
}

/// A triangle: its corners, then its normal, each drawn like any vector.
fn triangle<R: Rng>(rng: &mut R) -> Triangle {
    Triangle {
        v0: vector(rng),
        v1: vector(rng),
        v2: vector(rng),
        normal: vector(rng),
    }
}

/// The dataset, one value: rsb's mesh.
pub fn mesh() -> Vec<Mesh> {
    let mut rng = super::rng();
    vec![Mesh {
        triangles: super::many(&mut rng, TRIANGLES..TRIANGLES + 1, triangle),
    }]
}

/// What rsb's read of a mesh archive touches (each triangle's normal), as the access rows'
/// digest.
pub fn read_digest(mesh: &Mesh) -> u64 {
    super::read_each(&mesh.triangles, |d, t| {
        d.float(f64::from(t.normal.x));
        d.float(f64::from(t.normal.y));
        d.float(f64::from(t.normal.z));
    })
}

/// rsb's update of a mesh archive, made to the value: every triangle's normal to zero (the
/// `rkyv.update` rows' check).
pub fn rsb_update(mesh: &mut Mesh) {
    for t in &mut mesh.triangles {
        t.normal = Vector3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        };
    }
}
