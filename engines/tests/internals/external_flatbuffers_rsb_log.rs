//! `external::flatbuffers_rsb::log`.

use crate::external_flatbuffers_rsb::read;
use serprof_engines::dataset::rsb::log::Logs;
use serprof_engines::external::flatbuffers_rsb::rsb_log_generated as fb;
use serprof_engines::external::flatbuffers_rsb::Builder;

#[test]
fn a_log_without_its_address_is_an_error_that_names_it() {
    let mut b = Builder::new();
    let s = b.create_string("-");
    let mut t = fb::LogBuilder::new(&mut b);
    for add in [
        fb::LogBuilder::add_identity,
        fb::LogBuilder::add_userid,
        fb::LogBuilder::add_date,
        fb::LogBuilder::add_request,
    ] {
        add(&mut t, s);
    }
    let log = t.finish();
    let logs = b.create_vector(&[log]);
    let mut t = fb::LogsBuilder::new(&mut b);
    t.add_logs(logs);
    let root = t.finish();
    b.finish(root, None);
    let (decoded, access) = read::<Logs>(b.finished_data());
    for e in [decoded.unwrap_err(), access.unwrap_err()] {
        assert!(e.to_string().contains("Log.address"), "{e}");
    }
}
