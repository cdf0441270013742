//! rsb's `log` dataset: 10,000 HTTP request logs, small records of many short strings.

use rand::Rng;

use super::rsb_types;

/// How many logs the dataset holds.
pub const LOGS: usize = 10_000;

rsb_types! {
    /// An IPv4 address, one byte per part.
    #[derive(Copy)]
    #[cfg_attr(feature = "msgpacker", derive(msgpacker::MsgUnpackerBorrowed))]
    pub struct Address {
        /// First part.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub x0: u8,
        /// Second part.
        #[cfg_attr(feature = "minicbor", n(1))]
        pub x1: u8,
        /// Third part.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub x2: u8,
        /// Fourth part.
        #[cfg_attr(feature = "minicbor", n(3))]
        pub x3: u8,
    }

    /// One request of a web server's access log.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Log {
        /// The client's address.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub address: Address,
        /// The identity (always `-`).
        #[cfg_attr(feature = "minicbor", n(1))]
        pub identity: String,
        /// The user.
        #[cfg_attr(feature = "minicbor", n(2))]
        pub userid: String,
        /// The date, as a log writes it (`12/Mar/1999:13:05:59 +0100`).
        #[cfg_attr(feature = "minicbor", n(3))]
        pub date: String,
        /// The request line (`GET /api/login HTTP/2`).
        #[cfg_attr(feature = "minicbor", n(4))]
        pub request: String,
        /// The HTTP status.
        #[cfg_attr(feature = "minicbor", n(5))]
        pub code: u16,
        /// The response's size.
        #[cfg_attr(feature = "minicbor", n(6))]
        pub size: u64,
    }

    /// The dataset: every log.
    #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
    pub struct Logs {
        /// The logs.
        #[cfg_attr(feature = "minicbor", n(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub logs: Vec<Log>,
    }
}

/// bilrost writes an address as rsb has it: its four bytes as one fixed-width 32-bit field
/// (through bilrost's proxy: the value stands for a `[u8; 4]`, which the `Fixed` encoding writes
/// in four bytes), not as a nested message of four numbers.
#[cfg(feature = "bilrost")]
mod bilrost_address {
    use super::Address;
    use bilrost::encoding::{Fixed, ForOverwrite, Proxiable};
    use bilrost::DecodeErrorKind;

    impl ForOverwrite<(), Address> for () {
        fn for_overwrite() -> Address {
            Address {
                x0: 0,
                x1: 0,
                x2: 0,
                x3: 0,
            }
        }
    }

    bilrost::empty_state_via_for_overwrite!(Address);

    impl Proxiable for Address {
        type Proxy = [u8; 4];

        fn encode_proxy(&self) -> [u8; 4] {
            [self.x0, self.x1, self.x2, self.x3]
        }

        fn decode_proxy(&mut self, [x0, x1, x2, x3]: [u8; 4]) -> Result<(), DecodeErrorKind> {
            *self = Address { x0, x1, x2, x3 };
            Ok(())
        }
    }

    bilrost::delegate_proxied_encoding!(
        use encoding (Fixed) to encode proxied type (Address) with general encodings
        including schema
    );
}

super::borrowed_types! {
    /// A [`Log`] whose strings borrow from the payload it was read from (rsb's `borrow` column).
    pub struct BorrowLog<'a> {
        /// The client's address.
        #[cfg_attr(feature = "minicbor", n(0))]
        pub address: Address,
        /// The identity.
        #[cfg_attr(feature = "minicbor", b(1))]
        pub identity: &'a str,
        /// The user.
        #[cfg_attr(feature = "minicbor", b(2))]
        pub userid: &'a str,
        /// The date.
        #[cfg_attr(feature = "minicbor", b(3))]
        pub date: &'a str,
        /// The request line.
        #[cfg_attr(feature = "minicbor", b(4))]
        pub request: &'a str,
        /// The HTTP status.
        #[cfg_attr(feature = "minicbor", n(5))]
        pub code: u16,
        /// The response's size.
        #[cfg_attr(feature = "minicbor", n(6))]
        pub size: u64,
    }

    /// [`Logs`] read without copying its strings.
    pub struct BorrowLogs<'a> {
        /// The logs.
        #[serde(borrow)]
        #[cfg_attr(feature = "minicbor", b(0))]
        #[cfg_attr(feature = "bilrost", bilrost(encoding(packed)))]
        pub logs: Vec<BorrowLog<'a>>,
    }
}

impl From<BorrowLogs<'_>> for Logs {
    fn from(b: BorrowLogs<'_>) -> Logs {
        let logs = b
            .logs
            .into_iter()
            .map(|l| Log {
                address: l.address,
                identity: l.identity.to_owned(),
                userid: l.userid.to_owned(),
                date: l.date.to_owned(),
                request: l.request.to_owned(),
                code: l.code,
                size: l.size,
            })
            .collect();
        Logs { logs }
    }
}

/// The users a log names.
const USERS: [&str; 9] = [
    "-", "alice", "bob", "carmen", "david", "eric", "frank", "george", "harry",
];
/// Months as a log writes them.
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
/// Every HTTP status code of the dataset.
const STATUS: [u16; 63] = [
    100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304,
    305, 306, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414,
    415, 416, 417, 418, 421, 422, 423, 424, 425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504,
    505, 506, 507, 508, 510, 511,
];
/// Request methods.
const METHODS: [&str; 5] = ["GET", "POST", "PUT", "UPDATE", "DELETE"];
/// Request paths.
const PATHS: [&str; 7] = [
    "/favicon.ico",
    "/css/index.css",
    "/css/font-awsome.min.css",
    "/img/logo-full.svg",
    "/img/splash.jpg",
    "/api/login",
    "/api/logout",
];
/// Protocols.
const PROTOCOLS: [&str; 4] = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3"];

/// A time zone offset, from `-1200` to `+1200` by whole hours (`zone` 0 to 24).
pub fn zone(zone: usize) -> String {
    let hours = zone as i32 - 12;
    let sign = if hours < 0 { '-' } else { '+' };
    format!("{sign}{:02}00", hours.abs())
}

/// One log, its fields drawn in rsb's order: the date's parts, the request's, then the
/// address, the user, the status and the size.
fn log<R: Rng>(rng: &mut R) -> Log {
    // Calendar parts are drawn as i32 (they are only printed); indexes as usize.
    let day: i32 = rng.gen_range(1..=28);
    let month = MONTHS[rng.gen_range(0..MONTHS.len())];
    let year: i32 = rng.gen_range(1970..=2021);
    let hour: i32 = rng.gen_range(0..24);
    let minute: i32 = rng.gen_range(0..60);
    let second: i32 = rng.gen_range(0..60);
    let tz = zone(rng.gen_range(0..25));
    let date = format!("{day}/{month}/{year}:{hour}:{minute}:{second} {tz}");
    let method = METHODS[rng.gen_range(0..METHODS.len())];
    let path = PATHS[rng.gen_range(0..PATHS.len())];
    let protocol = PROTOCOLS[rng.gen_range(0..PROTOCOLS.len())];
    let address = Address {
        x0: rng.gen_range(0..=255),
        x1: rng.gen_range(0..=255),
        x2: rng.gen_range(0..=255),
        x3: rng.gen_range(0..=255),
    };
    Log {
        address,
        identity: "-".to_owned(),
        userid: USERS[rng.gen_range(0..USERS.len())].to_owned(),
        date,
        request: format!("{method} {path} {protocol}"),
        code: STATUS[rng.gen_range(0..STATUS.len())],
        size: rng.gen_range(0..100_000_000),
    }
}

/// The dataset, one value: rsb's 10,000 logs.
pub fn logs() -> Vec<Logs> {
    let mut rng = super::rng();
    vec![Logs {
        logs: super::many(&mut rng, LOGS..LOGS + 1, log),
    }]
}

/// What rsb's read of a log archive touches (each log's address, code and size), as the
/// access rows' digest.
pub fn read_digest(logs: &Logs) -> u64 {
    super::read_each(&logs.logs, |d, l| {
        let a = l.address;
        d.int(i64::from(u32::from_le_bytes([a.x0, a.x1, a.x2, a.x3])));
        d.int(i64::from(l.code));
        d.int(l.size as i64);
    })
}

/// rsb's update of a log archive, made to the value: every address to 0.0.0.0, every code to
/// 200, every size to 0 (the `rkyv.update` rows' check).
pub fn rsb_update(logs: &mut Logs) {
    for l in &mut logs.logs {
        l.address = Address {
            x0: 0,
            x1: 0,
            x2: 0,
            x3: 0,
        };
        l.code = 200;
        l.size = 0;
    }
}
