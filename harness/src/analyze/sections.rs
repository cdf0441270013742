//! What differs between the two sides' binaries, section by section: a change that alters no
//! code should leave the code (`.text`) and its layout alone and change only what names lines
//! and paths (debug info, panic locations).

use serde::{Deserialize, Serialize};

/// One ELF section of a binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub name: String,
    /// Loaded at run time (`SHF_ALLOC`): part of the layout.
    pub alloc: bool,
    pub addr: u64,
    pub size: u64,
    /// FNV-1a of its bytes (`None` for sections without bytes in the file, `.bss`).
    pub hash: Option<u64>,
}

/// How one section differs between the sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SectionDiff {
    pub name: String,
    /// Loaded at run time: a difference here is part of the layout.
    pub alloc: bool,
    /// Sizes before and after (`None`: the side has no such section).
    pub size: [Option<u64>; 2],
    /// Addresses before and after.
    pub addr: [Option<u64>; 2],
    /// Same size and address, other bytes.
    pub bytes_only: bool,
}

/// Sections of the two binaries that differ in size, address or bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub(crate) struct BinaryDiff {
    /// Sections present and equal (size, address and bytes) on both sides.
    pub equal: usize,
    pub differ: Vec<SectionDiff>,
}

impl BinaryDiff {
    /// One line: whether the loaded sections are the same, and which differ.
    pub(crate) fn summary(&self) -> String {
        let loaded: Vec<&SectionDiff> = self.differ.iter().filter(|d| d.alloc).collect();
        let other: Vec<&str> = self
            .differ
            .iter()
            .filter(|d| !d.alloc)
            .map(|d| d.name.as_str())
            .collect();
        let names = |v: &[&str]| match v.is_empty() {
            true => "none".to_string(),
            false => v.join(", "),
        };
        let moved: Vec<&str> = loaded
            .iter()
            .filter(|d| !d.bytes_only)
            .map(|d| d.name.as_str())
            .collect();
        let bytes: Vec<&str> = loaded
            .iter()
            .filter(|d| d.bytes_only)
            .map(|d| d.name.as_str())
            .collect();
        format!(
            "the two binaries: {} sections equal; loaded sections moved or resized: {}; loaded sections with other bytes only: {}; other sections differing: {}",
            self.equal,
            names(&moved),
            names(&bytes),
            names(&other)
        )
    }
}

pub(crate) use crate::model::hash::fnv;

/// Why a file's sections could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ElfError {
    #[error("not a 64-bit little-endian ELF file")]
    NotElf,
    #[error("truncated at {0}")]
    Truncated(usize),
    #[error("no section table")]
    NoSectionTable,
    #[error("a section name past the end")]
    NamePastEnd,
    #[error("section {0} past the end")]
    SectionPastEnd(String),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    In {
        path: std::path::PathBuf,
        source: Box<ElfError>,
    },
}

/// The sections of a 64-bit little-endian ELF file, or why it is not one.
pub(crate) fn sections(elf: &[u8]) -> Result<Vec<Section>, ElfError> {
    let at = |at: usize, n: usize| elf.get(at..at + n).ok_or(ElfError::Truncated(at));
    let u16_at = |a: usize| at(a, 2).map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])));
    let u32_at =
        |a: usize| at(a, 4).map(|b| u64::from(u32::from_le_bytes(b.try_into().expect("4 bytes"))));
    let u64_at = |a: usize| at(a, 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    if elf.get(..6) != Some(b"\x7fELF\x02\x01") {
        return Err(ElfError::NotElf);
    }
    let shoff = u64_at(0x28)? as usize;
    let shentsize = u16_at(0x3a)? as usize;
    let shnum = u16_at(0x3c)? as usize;
    let shstrndx = u16_at(0x3e)? as usize;
    if shentsize < 64 || shstrndx >= shnum {
        return Err(ElfError::NoSectionTable);
    }
    let header = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18)? as usize;
    let mut out = Vec::with_capacity(shnum);
    for i in 1..shnum {
        let h = header(i);
        let name_at = strtab + u32_at(h)? as usize;
        let name = elf
            .get(name_at..)
            .and_then(|rest| rest.split(|&b| b == 0).next())
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .ok_or(ElfError::NamePastEnd)?;
        let kind = u32_at(h + 4)?;
        let flags = u64_at(h + 8)?;
        let addr = u64_at(h + 0x10)?;
        let offset = u64_at(h + 0x18)? as usize;
        let size = u64_at(h + 0x20)?;
        // SHT_NOBITS (8): no bytes in the file.
        let hash = match kind {
            8 => None,
            _ => Some(fnv(elf
                .get(offset..offset + size as usize)
                .ok_or_else(|| ElfError::SectionPastEnd(name.clone()))?)),
        };
        out.push(Section {
            name,
            alloc: flags & 2 != 0,
            addr,
            size,
            hash,
        });
    }
    Ok(out)
}

/// The sections that differ between `before` and `after` (by name; a name used twice is
/// compared in order).
pub(crate) fn diff(before: &[Section], after: &[Section]) -> BinaryDiff {
    let mut names: Vec<&str> = before
        .iter()
        .chain(after)
        .map(|s| s.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut out = BinaryDiff::default();
    for name in names {
        let b = before.iter().find(|s| s.name == name);
        let a = after.iter().find(|s| s.name == name);
        if let (Some(b), Some(a)) = (b, a) {
            if b.size == a.size && b.addr == a.addr && b.hash == a.hash {
                out.equal += 1;
                continue;
            }
        }
        out.differ.push(SectionDiff {
            name: name.to_string(),
            alloc: b.or(a).is_some_and(|s| s.alloc),
            size: [b.map(|s| s.size), a.map(|s| s.size)],
            addr: [b.map(|s| s.addr), a.map(|s| s.addr)],
            bytes_only: matches!((b, a), (Some(b), Some(a)) if b.size == a.size && b.addr == a.addr),
        });
    }
    out
}

/// The difference between two binaries on disk, or why it cannot be read.
pub(crate) fn diff_files(
    before: &std::path::Path,
    after: &std::path::Path,
) -> Result<BinaryDiff, ElfError> {
    let read = |p: &std::path::Path| {
        let bytes = std::fs::read(p).map_err(|source| ElfError::Read {
            path: p.to_path_buf(),
            source,
        })?;
        sections(&bytes).map_err(|e| ElfError::In {
            path: p.to_path_buf(),
            source: Box::new(e),
        })
    };
    Ok(diff(&read(before)?, &read(after)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(name: &str, alloc: bool, addr: u64, size: u64, hash: u64) -> Section {
        Section {
            name: name.into(),
            alloc,
            addr,
            size,
            hash: Some(hash),
        }
    }

    #[test]
    fn this_test_binary_reads_and_equals_itself() {
        let me = std::env::current_exe().unwrap();
        let all = sections(&std::fs::read(&me).unwrap()).unwrap();
        assert!(all
            .iter()
            .any(|s| s.name == ".text" && s.alloc && s.size > 0));
        let d = diff_files(&me, &me).unwrap();
        assert!(d.differ.is_empty(), "{d:?}");
        assert_eq!(d.equal, all.len());
        assert!(sections(b"not an elf").is_err());
    }

    #[test]
    fn moved_resized_and_rewritten_sections_are_told_apart() {
        let before = [
            section(".text", true, 0x1000, 100, 1),
            section(".rodata", true, 0x2000, 50, 2),
            section(".debug_line", false, 0, 70, 3),
            section(".data", true, 0x3000, 8, 4),
        ];
        let after = [
            section(".text", true, 0x1000, 100, 1),
            section(".rodata", true, 0x2000, 50, 9),
            section(".debug_line", false, 0, 72, 5),
            section(".data", true, 0x3010, 8, 4),
        ];
        let d = diff(&before, &after);
        assert_eq!(d.equal, 1);
        let by = |n: &str| d.differ.iter().find(|x| x.name == n).unwrap();
        assert!(by(".rodata").bytes_only && by(".rodata").alloc);
        assert!(!by(".data").bytes_only);
        assert!(!by(".debug_line").alloc);
        let text = d.summary();
        assert!(text.contains("moved or resized: .data;"), "{text}");
        assert!(text.contains("other bytes only: .rodata;"), "{text}");
        assert!(
            text.contains("other sections differing: .debug_line"),
            "{text}"
        );
    }
}
