//! rsb's `log` as FlatBuffers tables (`engines/schemas/rsb_log.fbs`, rsb's `log.fbs`).

use flatbuffers::WIPOffset;

use super::rsb_log_generated as fb;
use super::{present, Builder, Tables};
use crate::dataset::rsb::log::{Address, Log, Logs};
use crate::model::Digest;
use serprof_api::CodecError;

/// One log's table: its four strings first, then the table's fields in the schema's order.
fn build_log(b: &mut Builder, l: &Log) -> WIPOffset<fb::Log<'static>> {
    let a = l.address;
    let address = fb::Address::new(a.x0, a.x1, a.x2, a.x3);
    let identity = b.create_string(&l.identity);
    let userid = b.create_string(&l.userid);
    let date = b.create_string(&l.date);
    let request = b.create_string(&l.request);
    let mut t = fb::LogBuilder::new(b);
    t.add_address(&address);
    t.add_identity(identity);
    t.add_userid(userid);
    t.add_date(date);
    t.add_request(request);
    t.add_code(l.code);
    t.add_size_(l.size);
    t.finish()
}

fn read_log(l: fb::Log<'_>) -> Result<Log, CodecError> {
    let a = present(l.address(), "Log.address")?;
    Ok(Log {
        address: Address {
            x0: a.x0(),
            x1: a.x1(),
            x2: a.x2(),
            x3: a.x3(),
        },
        identity: l.identity().to_owned(),
        userid: l.userid().to_owned(),
        date: l.date().to_owned(),
        request: l.request().to_owned(),
        code: l.code(),
        size: l.size_(),
    })
}

impl Tables for Logs {
    type Root<'a> = fb::Logs<'a>;

    fn build(&self, b: &mut Builder) -> Result<WIPOffset<fb::Logs<'static>>, CodecError> {
        let logs: Vec<_> = self.logs.iter().map(|l| build_log(b, l)).collect();
        let logs = b.create_vector(&logs);
        let mut t = fb::LogsBuilder::new(b);
        t.add_logs(logs);
        Ok(t.finish())
    }

    fn read(root: fb::Logs<'_>) -> Result<Logs, CodecError> {
        let logs = root.logs().iter().map(read_log).collect::<Result<_, _>>()?;
        Ok(Logs { logs })
    }

    /// Each log's address, code and size (rsb's read), as `log::read_digest` digests them.
    fn read_in_place(root: fb::Logs<'_>) -> Result<u64, CodecError> {
        let mut d = Digest::default();
        for l in root.logs() {
            let a = present(l.address(), "Log.address")?;
            d.int(i64::from(u32::from_le_bytes([
                a.x0(),
                a.x1(),
                a.x2(),
                a.x3(),
            ])));
            d.int(i64::from(l.code()));
            d.int(l.size_() as i64);
        }
        Ok(d.finish())
    }
}
