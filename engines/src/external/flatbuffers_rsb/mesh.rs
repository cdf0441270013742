//! rsb's `mesh` as FlatBuffers tables (`engines/schemas/rsb_mesh.fbs`, rsb's `mesh.fbs`).

use flatbuffers::WIPOffset;

use super::rsb_mesh_generated as fb;
use super::{Builder, Tables};
use crate::dataset::rsb::mesh::{Mesh, Triangle, Vector3};
use crate::model::Digest;
use serprof_api::CodecError;

fn vector(v: Vector3) -> fb::Vector3 {
    fb::Vector3::new(v.x, v.y, v.z)
}

fn vector_back(v: &fb::Vector3) -> Vector3 {
    Vector3 {
        x: v.x(),
        y: v.y(),
        z: v.z(),
    }
}

impl Tables for Mesh {
    type Root<'a> = fb::Mesh<'a>;

    /// The triangles pushed one by one into a vector of structs (rsb's `start_vector`, `push`,
    /// `end_vector`), then the mesh's table. The builder writes back to front, so they are
    /// pushed last first, to be read first to last; rsb pushes them first first, which stores
    /// them reversed, in as many bytes.
    fn build(&self, b: &mut Builder) -> Result<WIPOffset<fb::Mesh<'static>>, CodecError> {
        let n = self.triangles.len();
        b.start_vector::<fb::Triangle>(n);
        for t in self.triangles.iter().rev() {
            b.push(fb::Triangle::new(
                &vector(t.v0),
                &vector(t.v1),
                &vector(t.v2),
                &vector(t.normal),
            ));
        }
        let triangles = b.end_vector::<fb::Triangle>(n);
        let mut t = fb::MeshBuilder::new(b);
        t.add_triangles(triangles);
        Ok(t.finish())
    }

    fn read(root: fb::Mesh<'_>) -> Result<Mesh, CodecError> {
        let triangles = root
            .triangles()
            .iter()
            .map(|t| Triangle {
                v0: vector_back(t.v0()),
                v1: vector_back(t.v1()),
                v2: vector_back(t.v2()),
                normal: vector_back(t.normal()),
            })
            .collect();
        Ok(Mesh { triangles })
    }

    /// Each triangle's normal (rsb's read), as `mesh::read_digest` digests it.
    fn read_in_place(root: fb::Mesh<'_>) -> Result<u64, CodecError> {
        let mut d = Digest::default();
        for t in root.triangles() {
            let n = t.normal();
            d.float(f64::from(n.x()));
            d.float(f64::from(n.y()));
            d.float(f64::from(n.z()));
        }
        Ok(d.finish())
    }
}
