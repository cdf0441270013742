//! rsb's `log` (its `log.proto`: `Logs`, `Log`, `Address`).

/// The codec's `Messages` (resolved where the macro is called) for rsb's `Logs`. The
/// arguments: the message types, then `some` and `take` (wrap a nested message; unwrap it,
/// given the field's name for the error), then the tokens that end every struct literal
/// (`..Default::default()` or nothing).
macro_rules! log_messages {
    (
        logs: $logs:ident, log: $log:ident, address: $address:ident,
        some: $some:expr, take: $take:expr,
        rest: {$($rest:tt)*} $(,)?
    ) => {
        impl Messages for crate::dataset::rsb::log::Logs {
            type Message = $logs;

            fn populate(&self) -> $logs {
                let logs = self
                    .logs
                    .iter()
                    .map(|l| $log {
                        address: ($some)($address {
                            x0: l.address.x0.into(),
                            x1: l.address.x1.into(),
                            x2: l.address.x2.into(),
                            x3: l.address.x3.into(),
                            $($rest)*
                        }),
                        identity: l.identity.clone(),
                        userid: l.userid.clone(),
                        date: l.date.clone(),
                        request: l.request.clone(),
                        code: l.code.into(),
                        size: l.size,
                        $($rest)*
                    })
                    .collect();
                $logs { logs, $($rest)* }
            }

            fn convert(
                message: $logs,
            ) -> Result<crate::dataset::rsb::log::Logs, serprof_api::CodecError> {
                use crate::dataset::rsb::log as data;
                use crate::external::rsb_pb::fit;
                let logs = message
                    .logs
                    .into_iter()
                    .map(|l| {
                        let a = ($take)(l.address, "Log.address")?;
                        Ok(data::Log {
                            address: data::Address {
                                x0: fit(a.x0, "Address.x0")?,
                                x1: fit(a.x1, "Address.x1")?,
                                x2: fit(a.x2, "Address.x2")?,
                                x3: fit(a.x3, "Address.x3")?,
                            },
                            identity: l.identity,
                            userid: l.userid,
                            date: l.date,
                            request: l.request,
                            code: fit(l.code, "Log.code")?,
                            size: l.size,
                        })
                    })
                    .collect::<Result<_, serprof_api::CodecError>>()?;
                Ok(data::Logs { logs })
            }
        }
    };
}
