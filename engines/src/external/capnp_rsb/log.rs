//! rsb's `log` as Cap'n Proto structs (`engines/schemas/rsb_log.capnp`).

use super::rsb_log_capnp::{address, log, logs};
use super::{build_list, checked, owned, read_each, read_list, text, Structs};
use crate::dataset::rsb::log::{Address, Log, Logs};
use serprof_api::CodecError;

impl Structs for Logs {
    type Root = logs::Owned;

    fn build(&self, root: logs::Builder<'_>) -> Result<(), CodecError> {
        build_list(&self.logs, "Logs.logs", |n| root.init_logs(n), build_log)
    }

    fn read(root: logs::Reader<'_>) -> Result<Logs, CodecError> {
        let logs = read_list(root.get_logs(), read_log)?;
        Ok(Logs { logs })
    }

    fn digest(root: logs::Reader<'_>) -> Result<u64, CodecError> {
        read_each(checked(root.get_logs())?, |d, l| {
            let a = checked(l.get_address())?;
            d.int(i64::from(u32::from_le_bytes([
                a.get_x0(),
                a.get_x1(),
                a.get_x2(),
                a.get_x3(),
            ])));
            d.int(i64::from(l.get_code()));
            d.int(l.get_size() as i64);
            Ok(())
        })
    }
}

fn build_log(l: &Log, mut b: log::Builder<'_>) -> Result<(), CodecError> {
    build_address(l.address, b.reborrow().init_address());
    b.set_identity(text(&l.identity, "Log.identity")?);
    b.set_userid(text(&l.userid, "Log.userid")?);
    b.set_date(text(&l.date, "Log.date")?);
    b.set_request(text(&l.request, "Log.request")?);
    b.set_code(l.code);
    b.set_size(l.size);
    Ok(())
}

fn build_address(a: Address, mut b: address::Builder<'_>) {
    b.set_x0(a.x0);
    b.set_x1(a.x1);
    b.set_x2(a.x2);
    b.set_x3(a.x3);
}

fn read_log(r: log::Reader<'_>) -> Result<Log, CodecError> {
    let a = checked(r.get_address())?;
    Ok(Log {
        address: Address {
            x0: a.get_x0(),
            x1: a.get_x1(),
            x2: a.get_x2(),
            x3: a.get_x3(),
        },
        identity: owned(r.get_identity())?,
        userid: owned(r.get_userid())?,
        date: owned(r.get_date())?,
        request: owned(r.get_request())?,
        code: r.get_code(),
        size: r.get_size(),
    })
}
