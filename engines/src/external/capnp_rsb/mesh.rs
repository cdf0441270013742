//! rsb's `mesh` as Cap'n Proto structs (`engines/schemas/rsb_mesh.capnp`).

use super::rsb_mesh_capnp::{mesh, vector3};
use super::{build_list, checked, read_each, read_list, Structs};
use crate::dataset::rsb::mesh::{Mesh, Triangle, Vector3};
use serprof_api::CodecError;

impl Structs for Mesh {
    type Root = mesh::Owned;

    fn build(&self, root: mesh::Builder<'_>) -> Result<(), CodecError> {
        let triangles = |n| root.init_triangles(n);
        build_list(&self.triangles, "Mesh.triangles", triangles, |t, mut b| {
            build_vector(t.v0, b.reborrow().init_v0());
            build_vector(t.v1, b.reborrow().init_v1());
            build_vector(t.v2, b.reborrow().init_v2());
            build_vector(t.normal, b.init_normal());
            Ok(())
        })
    }

    fn read(root: mesh::Reader<'_>) -> Result<Mesh, CodecError> {
        let triangles = read_list(root.get_triangles(), |t| {
            Ok(Triangle {
                v0: read_vector(t.get_v0())?,
                v1: read_vector(t.get_v1())?,
                v2: read_vector(t.get_v2())?,
                normal: read_vector(t.get_normal())?,
            })
        })?;
        Ok(Mesh { triangles })
    }

    fn digest(root: mesh::Reader<'_>) -> Result<u64, CodecError> {
        read_each(checked(root.get_triangles())?, |d, t| {
            let n = checked(t.get_normal())?;
            d.float(f64::from(n.get_x()));
            d.float(f64::from(n.get_y()));
            d.float(f64::from(n.get_z()));
            Ok(())
        })
    }
}

fn build_vector(v: Vector3, mut b: vector3::Builder<'_>) {
    b.set_x(v.x);
    b.set_y(v.y);
    b.set_z(v.z);
}

fn read_vector(r: capnp::Result<vector3::Reader<'_>>) -> Result<Vector3, CodecError> {
    let r = checked(r)?;
    Ok(Vector3 {
        x: r.get_x(),
        y: r.get_y(),
        z: r.get_z(),
    })
}
