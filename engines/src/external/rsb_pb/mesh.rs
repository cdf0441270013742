//! rsb's `mesh` (its `mesh.proto`: `Mesh`, `Triangle`, `Vector3`).

/// The codec's `Messages` (resolved where the macro is called) for rsb's `Mesh`. The arguments:
/// the message types, then `some` and `take` (wrap a nested message; unwrap it, given the
/// field's name for the error), then the tokens that end every struct literal
/// (`..Default::default()` or nothing).
macro_rules! mesh_messages {
    (
        mesh: $mesh:ident, triangle: $triangle:ident, vector3: $vector3:ident,
        some: $some:expr, take: $take:expr,
        rest: {$($rest:tt)*} $(,)?
    ) => {
        impl Messages for crate::dataset::rsb::mesh::Mesh {
            type Message = $mesh;

            fn populate(&self) -> $mesh {
                let vector = |v: &crate::dataset::rsb::mesh::Vector3| {
                    ($some)($vector3 { x: v.x, y: v.y, z: v.z, $($rest)* })
                };
                let triangles = self
                    .triangles
                    .iter()
                    .map(|t| $triangle {
                        v0: vector(&t.v0),
                        v1: vector(&t.v1),
                        v2: vector(&t.v2),
                        normal: vector(&t.normal),
                        $($rest)*
                    })
                    .collect();
                $mesh { triangles, $($rest)* }
            }

            fn convert(
                message: $mesh,
            ) -> Result<crate::dataset::rsb::mesh::Mesh, serprof_api::CodecError> {
                use crate::dataset::rsb::mesh as data;
                let vector = |v, what| {
                    let v: $vector3 = ($take)(v, what)?;
                    Ok::<_, serprof_api::CodecError>(data::Vector3 { x: v.x, y: v.y, z: v.z })
                };
                let triangles = message
                    .triangles
                    .into_iter()
                    .map(|t| {
                        Ok(data::Triangle {
                            v0: vector(t.v0, "Triangle.v0")?,
                            v1: vector(t.v1, "Triangle.v1")?,
                            v2: vector(t.v2, "Triangle.v2")?,
                            normal: vector(t.normal, "Triangle.normal")?,
                        })
                    })
                    .collect::<Result<_, serprof_api::CodecError>>()?;
                Ok(data::Mesh { triangles })
            }
        }
    };
}
