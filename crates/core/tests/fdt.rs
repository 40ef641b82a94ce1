//! The DTB reader (`mairbench_core::fdt`) on small hand-made blobs, and against
//! `dtoolkit` on every fixture.

mod common;

use common::oracle::{first_difference, list_dtoolkit, list_ours, Item};
use common::{fixture, DtBuilder, FDT_BEGIN_NODE, FDT_END, FDT_END_NODE, FDT_NOP, FDT_PROP};
use mairbench_core::fdt::{
    cells_to_u64, total_size, Error, Fdt, Node, DEFAULT_ADDRESS_CELLS, DEFAULT_SIZE_CELLS,
};

/// Where `DtBuilder` puts the structure block.
const OFF_STRUCT: usize = 56;

fn field(dtb: &[u8], i: usize) -> usize {
    u32::from_be_bytes(dtb[i * 4..i * 4 + 4].try_into().unwrap()) as usize
}

fn set_field(dtb: &mut [u8], i: usize, v: usize) {
    dtb[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_be_bytes());
}

fn fdt(dtb: &[u8]) -> Fdt<'_> {
    Fdt::new(dtb).unwrap_or_else(|e| panic!("{e:?}: {}", e.message()))
}

fn names<'a>(nodes: impl Iterator<Item = Node<'a>>) -> Vec<&'a str> {
    nodes.map(Node::name).collect()
}

/// The full name of the node at `path`.
fn found(dtb: &[u8], path: &str) -> Option<String> {
    fdt(dtb).find_node(path).map(|n| n.name().to_string())
}

/// `/ { a { b@1 { x } b@2 { y } b { z } } c@10 { } aliases { ... } }`
fn paths_tree() -> Vec<u8> {
    let mut b = DtBuilder::default();
    b.begin("").str("model", "paths");
    b.begin("a");
    b.begin("b@1").str("which", "x").end();
    b.begin("b@2").str("which", "y").end();
    b.begin("b").str("which", "z").end();
    b.end();
    b.begin("c@10").end();
    b.begin("aliases")
        .str("serial0", "/a/b@2")
        .str("a", "/a")
        .str("relative", "a/b")
        .str("again", "serial0")
        .str("missing", "/a/b@3")
        .prop("unterminated", b"/a")
        .str("root", "/")
        .end();
    b.end().finish()
}

#[test]
fn path_lookup() {
    let dtb = paths_tree();
    assert_eq!(found(&dtb, "/").as_deref(), Some(""));
    assert_eq!(found(&dtb, "/a").as_deref(), Some("a"));
    assert_eq!(found(&dtb, "/a/b@1").as_deref(), Some("b@1"));
    assert_eq!(found(&dtb, "/a/b@2").as_deref(), Some("b@2"));
    assert_eq!(found(&dtb, "/a/b@3"), None);
    // Without a unit address, the first child whose name matches with or
    // without its unit address, as libfdt's fdt_path_offset() takes it.
    assert_eq!(found(&dtb, "/a/b").as_deref(), Some("b@1"));
    assert_eq!(found(&dtb, "/c").as_deref(), Some("c@10"));
    assert_eq!(found(&dtb, "/c@10").as_deref(), Some("c@10"));
    assert_eq!(found(&dtb, "/c@1"), None, "a unit address must match whole");
    assert_eq!(found(&dtb, "/c@100"), None);
    assert_eq!(found(&dtb, "/b"), None, "only children are searched");
    assert_eq!(found(&dtb, "/nowhere"), None);
    // Empty components are skipped.
    assert_eq!(found(&dtb, "//a///b@2/").as_deref(), Some("b@2"));
    // A property is not a node.
    assert_eq!(found(&dtb, "/model"), None);

    let fdt = fdt(&dtb);
    let b = fdt.find_node("/a/b").unwrap();
    assert_eq!(b.property("which").unwrap().as_str(), Some("x"));
    assert_eq!(
        fdt.root().child("a").unwrap().child("b@2").unwrap().name(),
        "b@2"
    );
    assert!(
        fdt.root().child("").is_none(),
        "the root has no unnamed child"
    );
}

#[test]
fn unit_addresses() {
    let mut b = DtBuilder::default();
    b.begin("");
    for name in ["plain", "uart@9000000", "odd@", "two@1@2", "@5"] {
        b.begin(name).end();
    }
    let dtb = b.end().finish();
    let fdt = fdt(&dtb);
    let root = fdt.root();
    assert_eq!(
        (root.name(), root.node_name(), root.unit_address()),
        ("", "", None)
    );
    let split: Vec<_> = root
        .children()
        .map(|n| (n.name(), n.node_name(), n.unit_address()))
        .collect();
    assert_eq!(
        split,
        [
            ("plain", "plain", None),
            ("uart@9000000", "uart", Some("9000000")),
            ("odd@", "odd", Some("")),
            ("two@1@2", "two", Some("1@2")),
            ("@5", "", Some("5")),
        ]
    );
    assert_eq!(root.child("two").unwrap().name(), "two@1@2");
    assert_eq!(root.child("two@1@2").unwrap().name(), "two@1@2");
    assert!(root.child("two@1").is_none());
    assert_eq!(root.child("odd").unwrap().name(), "odd@");
}

#[test]
fn aliases() {
    let dtb = paths_tree();
    let fdt = fdt(&dtb);
    assert_eq!(fdt.alias("serial0"), Some("/a/b@2"));
    assert_eq!(fdt.alias("nothing"), None);
    assert_eq!(fdt.alias("unterminated"), None, "not NUL-terminated");
    assert_eq!(found(&dtb, "serial0").as_deref(), Some("b@2"));
    assert_eq!(found(&dtb, "serial0/").as_deref(), Some("b@2"));
    assert_eq!(found(&dtb, "root").as_deref(), Some(""));
    // An alias followed by a path below it.
    assert_eq!(found(&dtb, "a/b@1").as_deref(), Some("b@1"));
    assert_eq!(found(&dtb, "a/b").as_deref(), Some("b@1"));
    assert_eq!(found(&dtb, "a/nothing"), None);
    // Not absolute, an alias of an alias (not followed), a dangling alias,
    // no alias, no name.
    for path in [
        "relative",
        "again",
        "missing",
        "unterminated",
        "nothing",
        "",
    ] {
        assert_eq!(found(&dtb, path), None, "{path:?}");
    }
    // Without /aliases, only absolute paths work.
    let mut b = DtBuilder::default();
    b.begin("").begin("a").end();
    let dtb = b.end().finish();
    assert_eq!(found(&dtb, "a"), None);
    assert_eq!(found(&dtb, "/a").as_deref(), Some("a"));
}

#[test]
fn walk_path_visits_each_node_root_first() {
    let dtb = paths_tree();
    let fdt = fdt(&dtb);
    let mut seen = Vec::new();
    let node = fdt.walk_path("serial0", |n| {
        seen.push(n.name());
        true
    });
    assert_eq!(node.unwrap().name(), "b@2");
    assert_eq!(seen, ["", "a", "b@2"]);

    // Stopped by the visitor: no node.
    let mut seen = Vec::new();
    let node = fdt.walk_path("/a/b@1", |n| {
        seen.push(n.name());
        seen.len() < 2
    });
    assert!(node.is_none());
    assert_eq!(seen, ["", "a"]);

    // A missing component: the nodes found so far were visited.
    let mut seen = Vec::new();
    assert!(fdt
        .walk_path("/a/zz/b", |n| {
            seen.push(n.name());
            true
        })
        .is_none());
    assert_eq!(seen, ["", "a"]);
}

#[test]
fn properties_and_children_in_blob_order() {
    let mut b = DtBuilder::default();
    b.begin("").str("p1", "1").cells("p2", &[2]).prop("p3", &[]);
    b.begin("x").str("p1", "inner");
    b.begin("deep").begin("deeper").end().end();
    b.end();
    b.begin("y").end();
    b.begin("z").cells("p1", &[3]).end();
    let dtb = b.end().finish();
    let fdt = fdt(&dtb);
    let root = fdt.root();
    let props: Vec<_> = root.properties().map(|p| (p.name(), p.value())).collect();
    assert_eq!(
        props,
        [
            ("p1", &b"1\0"[..]),
            ("p2", &[0, 0, 0, 2][..]),
            ("p3", &[][..])
        ]
    );
    assert_eq!(names(root.children()), ["x", "y", "z"]);
    assert_eq!(root.property("p1").unwrap().as_str(), Some("1"));
    assert!(root.property("p4").is_none());
    let x = root.child("x").unwrap();
    assert_eq!(x.property("p1").unwrap().as_str(), Some("inner"));
    assert_eq!(names(x.children()), ["deep"]);
    assert_eq!(names(x.child("deep").unwrap().children()), ["deeper"]);
    assert_eq!(
        root.child("z").unwrap().property("p1").unwrap().as_u32(),
        Some(3)
    );
    assert_eq!(root.child("y").unwrap().properties().count(), 0);
    // Iterators are fused.
    let mut children = root.children();
    assert_eq!(children.by_ref().count(), 3);
    assert!(children.next().is_none());
    let mut props = root.properties();
    assert_eq!(props.by_ref().count(), 3);
    assert!(props.next().is_none());
}

#[test]
fn string_lists() {
    let cases: [(&[u8], Option<&str>, &[&str]); 9] = [
        (b"one\0", Some("one"), &["one"]),
        (b"a\0\0bc\0", Some("a"), &["a", "", "bc"]),
        (b"\0", Some(""), &[""]),
        (b"", None, &[]),
        (b"abc", None, &[]),
        // The list ends at the first string that is not NUL-terminated...
        (b"a\0b", None, &["a"]),
        // ...or not UTF-8; as_str wants UTF-8 throughout.
        (b"ok\0\xff\0", None, &["ok"]),
        (b"\xff\0ok\0", None, &[]),
        ("é\0ü\0".as_bytes(), Some("é"), &["é", "ü"]),
    ];
    for (value, as_str, strings) in cases {
        let mut b = DtBuilder::default();
        b.begin("").prop("s", value).end();
        let dtb = b.finish();
        let fdt = fdt(&dtb);
        let p = fdt.root().property("s").unwrap();
        assert_eq!(p.as_str(), as_str, "{value:?}");
        assert_eq!(p.strings().collect::<Vec<_>>(), strings, "{value:?}");
    }
}

#[test]
fn cells_of_one_and_two() {
    let mut b = DtBuilder::default();
    b.begin("")
        .cells("one", &[0x1234_5678])
        .cells("two", &[0x1, 0x8000_0000])
        .prop("three-bytes", &[1, 2, 3])
        .cells("reg-1-1", &[0x1000, 0x100, 0x2000, 0x200])
        .cells("reg-2-2", &[0x1, 0x0, 0x0, 0x4000_0000])
        .cells("reg-2-1", &[0xffff_ffff, 0xffff_fff0, 0x10])
        .cells("three", &[0, 0, 1, 4])
        .cells("#address-cells", &[1])
        .cells("#size-cells", &[0]);
    b.begin("defaults").end();
    b.begin("malformed").prop("#address-cells", &[0, 1]).end();
    let dtb = b.end().finish();
    let fdt = fdt(&dtb);
    let root = fdt.root();
    let prop = |name: &str| root.property(name).unwrap();

    assert_eq!(prop("one").as_u32(), Some(0x1234_5678));
    assert_eq!(prop("one").as_u64(), None);
    assert_eq!(prop("two").as_u64(), Some(0x1_8000_0000));
    assert_eq!(prop("two").as_u32(), None);
    assert_eq!(prop("three-bytes").as_u32(), None);

    assert_eq!(cells_to_u64(&[]), Some(0));
    assert_eq!(cells_to_u64(&[0, 0, 0, 7]), Some(7));
    assert_eq!(cells_to_u64(&[0, 0, 0, 1, 0, 0, 0, 2]), Some(0x1_0000_0002));
    assert_eq!(cells_to_u64(&[0; 12]), None, "three cells do not fit");
    assert_eq!(cells_to_u64(&[0; 3]), None);

    let entries =
        |name: &str, cells: [u32; 2]| prop(name).entries(cells).map(|e| e.collect::<Vec<_>>());
    assert_eq!(
        entries("reg-1-1", [1, 1]),
        Some(vec![
            [Some(0x1000), Some(0x100)],
            [Some(0x2000), Some(0x200)]
        ])
    );
    assert_eq!(
        entries("reg-2-2", [2, 2]),
        Some(vec![[Some(0x1_0000_0000), Some(0x4000_0000)]])
    );
    assert_eq!(
        entries("reg-2-1", [2, 1]),
        Some(vec![[Some(0xffff_ffff_ffff_fff0), Some(0x10)]])
    );
    assert_eq!(
        entries("reg-2-1", [1, 1]),
        None,
        "3 cells are not entries of 2"
    );
    assert_eq!(entries("reg-1-1", [0, 0]), None, "entries of no cells");
    assert_eq!(entries("three", [3, 1]), Some(vec![[None, Some(4)]]));
    assert_eq!(
        entries("reg-1-1", [0, 1]),
        Some(vec![
            [Some(0), Some(0x1000)],
            [Some(0), Some(0x100)],
            [Some(0), Some(0x2000)],
            [Some(0), Some(0x200)]
        ])
    );
    assert_eq!(entries("reg-1-1", [u32::MAX, u32::MAX]), None);
    let ranges: Vec<_> = prop("reg-2-2").entries([1, 2, 1]).unwrap().collect();
    assert_eq!(ranges, [[Some(1), Some(0), Some(0x4000_0000)]]);

    assert_eq!(
        (root.address_cells(), root.size_cells()),
        (Some(1), Some(0))
    );
    let defaults = root.child("defaults").unwrap();
    assert_eq!(
        (defaults.address_cells(), defaults.size_cells()),
        (Some(DEFAULT_ADDRESS_CELLS), Some(DEFAULT_SIZE_CELLS))
    );
    assert_eq!((DEFAULT_ADDRESS_CELLS, DEFAULT_SIZE_CELLS), (2, 1));
    let malformed = root.child("malformed").unwrap();
    assert_eq!(malformed.address_cells(), None);
    assert_eq!(malformed.size_cells(), Some(DEFAULT_SIZE_CELLS));
}

#[test]
fn fdt_nop_in_odd_places() {
    let mut b = DtBuilder::default();
    b.begin("").token(FDT_NOP).token(FDT_NOP).str("a", "1");
    b.token(FDT_NOP).str("b", "2").token(FDT_NOP);
    b.begin("empty").token(FDT_NOP).end();
    b.token(FDT_NOP).token(FDT_NOP);
    b.begin("full").token(FDT_NOP).str("c", "3");
    b.token(FDT_NOP).begin("leaf").end().token(FDT_NOP);
    b.end().token(FDT_NOP);
    let dtb = b.end().finish();
    let fdt = fdt(&dtb);
    let root = fdt.root();
    assert_eq!(
        root.properties().map(|p| p.name()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(names(root.children()), ["empty", "full"]);
    assert_eq!(root.child("empty").unwrap().properties().count(), 0);
    assert_eq!(root.child("empty").unwrap().children().count(), 0);
    let full = fdt.find_node("/full").unwrap();
    assert_eq!(full.property("c").unwrap().as_str(), Some("3"));
    assert_eq!(names(full.children()), ["leaf"]);
    assert_eq!(fdt.find_node("/full/leaf").unwrap().name(), "leaf");
    // dtoolkit reads it the same way.
    let theirs = list_dtoolkit(dtoolkit::fdt::Fdt::new(&dtb).unwrap());
    assert_eq!(list_ours(fdt), theirs);
    assert_eq!(theirs.len(), 7);

    // Not outside the root: before it, or between it and FDT_END.
    let mut b = DtBuilder::default();
    b.token(FDT_NOP).begin("").end();
    assert_eq!(
        Fdt::new(&b.finish()).err(),
        Some(Error::Structure { offset: 0 })
    );
    let mut b = DtBuilder::default();
    b.begin("").end().token(FDT_NOP);
    assert_eq!(
        Fdt::new(&b.finish()).err(),
        Some(Error::Structure { offset: 12 })
    );
}

#[test]
fn malformed_structures_are_errors_with_their_offset() {
    let structure = |offset| Some(Error::Structure { offset });

    // A property whose value runs past the structure block.
    let mut b = DtBuilder::default();
    b.begin("").str("model", "m").end();
    let good = b.finish();
    let mut dtb = good.clone();
    dtb[OFF_STRUCT + 12..OFF_STRUCT + 16].copy_from_slice(&100u32.to_be_bytes());
    assert_eq!(Fdt::new(&dtb).err(), structure(8));
    dtb[OFF_STRUCT + 12..OFF_STRUCT + 16].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(Fdt::new(&dtb).err(), structure(8));
    // Its name outside the strings block.
    let mut dtb = good.clone();
    dtb[OFF_STRUCT + 16..OFF_STRUCT + 20].copy_from_slice(&6u32.to_be_bytes());
    assert_eq!(Fdt::new(&dtb).err(), structure(8));
    // The structure block cut anywhere, the header patched to match: an error,
    // not a panic, and the offset of the token that no longer fits.
    let size_struct = field(&good, 9);
    for cut in 0..size_struct {
        let mut dtb = good.clone();
        set_field(&mut dtb, 9, cut);
        let err = Fdt::new(&dtb).err();
        let fits = |offset: usize| offset <= cut.next_multiple_of(4);
        assert!(
            matches!(err, Some(Error::Structure { offset }) if fits(offset)),
            "{cut}: {err:?}"
        );
    }
    assert!(Fdt::new(&good).is_ok());

    // A property after a child node.
    let mut b = DtBuilder::default();
    b.begin("").begin("a").end().str("late", "x").end();
    assert_eq!(Fdt::new(&b.finish()).err(), structure(20));
    // Unclosed, closed twice, a second root, a named root, only FDT_END, an
    // unknown token, a node name without its NUL.
    let mut b = DtBuilder::default();
    b.begin("").begin("a");
    assert_eq!(Fdt::new(&b.finish()).err(), structure(16));
    let mut b = DtBuilder::default();
    b.begin("").end().end();
    assert_eq!(Fdt::new(&b.finish()).err(), structure(12));
    let mut b = DtBuilder::default();
    b.begin("").end().begin("").end();
    assert_eq!(Fdt::new(&b.finish()).err(), structure(12));
    let mut b = DtBuilder::default();
    b.begin("root").end();
    assert_eq!(Fdt::new(&b.finish()).err(), structure(0));
    assert_eq!(Fdt::new(&DtBuilder::default().finish()).err(), structure(0));
    let mut b = DtBuilder::default();
    b.begin("").token(5).end();
    assert_eq!(Fdt::new(&b.finish()).err(), structure(8));
    let mut b = DtBuilder::default();
    b.token(FDT_BEGIN_NODE).token(0x6162_6364);
    let mut dtb = b.finish();
    set_field(&mut dtb, 9, 8);
    assert_eq!(Fdt::new(&dtb).err(), structure(0));
    // An FDT_PROP header cut short; FDT_END_NODE first.
    let mut b = DtBuilder::default();
    b.begin("").token(FDT_PROP).token(0);
    let mut dtb = b.finish();
    set_field(&mut dtb, 9, 16);
    assert_eq!(Fdt::new(&dtb).err(), structure(8));
    let mut b = DtBuilder::default();
    b.token(FDT_END_NODE).token(FDT_END);
    assert_eq!(Fdt::new(&b.finish()).err(), structure(0));
}

#[test]
fn header_errors() {
    let mut b = DtBuilder::default();
    b.begin("").end();
    let good = b.finish();
    assert_eq!(total_size(&good), Some(good.len()));
    assert_eq!(total_size(&good[..40]), Some(good.len()));
    assert_eq!(total_size(&good[..39]), None);

    let with = |i: usize, v: usize| {
        let mut dtb = good.clone();
        set_field(&mut dtb, i, v);
        Fdt::new(&dtb).err()
    };
    assert_eq!(with(0, 0xd00d_fee0), Some(Error::Header), "magic");
    assert_eq!(with(5, 16), Some(Error::Header), "version 16");
    assert_eq!(
        with(6, 18),
        Some(Error::Header),
        "last compatible version 18"
    );
    assert_eq!(with(5, 18), None, "version 18, compatible with 16");
    assert_eq!(with(1, 39), Some(Error::Header), "smaller than its header");
    assert_eq!(with(1, good.len() + 1), Some(Error::Truncated));
    assert_eq!(
        with(2, 58),
        Some(Error::Blocks),
        "structure block misaligned"
    );
    assert_eq!(
        with(2, good.len()),
        Some(Error::Blocks),
        "structure block outside"
    );
    assert_eq!(
        with(9, good.len()),
        Some(Error::Blocks),
        "structure block too long"
    );
    assert_eq!(
        with(3, good.len() + 1),
        Some(Error::Blocks),
        "strings block outside"
    );
    assert_eq!(with(8, 1), Some(Error::Blocks), "strings block too long");
    assert_eq!(
        with(3, good.len()),
        None,
        "an empty strings block at the end"
    );
    assert_eq!(Fdt::new(&[]).err(), Some(Error::Header));
    assert_eq!(Fdt::new(&good[..39]).err(), Some(Error::Header));
    assert_eq!(Fdt::new(&good[..40]).err(), Some(Error::Truncated));
    // Bytes after totalsize are not part of the blob.
    let mut longer = good.clone();
    longer.extend([0xff; 64]);
    assert_eq!(list_ours(fdt(&longer)), list_ours(fdt(&good)));

    for e in [
        Error::Header,
        Error::Truncated,
        Error::Blocks,
        Error::Structure { offset: 4 },
    ] {
        assert!(e.message().len() > 20);
        assert_eq!(e.to_string(), e.message());
    }
}

#[test]
fn deep_nesting_without_recursion() {
    const DEPTH: usize = 100_000;
    let mut b = DtBuilder::default();
    b.begin("");
    for _ in 0..DEPTH {
        b.begin("n@1").str("p", "v");
    }
    b.begin("leaf").end();
    for _ in 0..DEPTH {
        b.end();
    }
    b.begin("after").end();
    let dtb = b.end().finish();
    let fdt = fdt(&dtb);
    // Skipping the whole subtree to reach the sibling after it.
    assert_eq!(names(fdt.root().children()), ["n@1", "after"]);
    let mut node = fdt.root();
    let mut depth = 0;
    while let Some(child) = node.children().next() {
        node = child;
        depth += 1;
    }
    assert_eq!((depth, node.name()), (DEPTH + 1, "leaf"));
    let path = format!("{}/leaf", "/n".repeat(DEPTH));
    assert_eq!(fdt.find_node(&path).unwrap().name(), "leaf");
}

/// Every fixture, as `mairbench_core::fdt` and `dtoolkit` read it.
#[test]
fn fixtures_read_as_dtoolkit_reads_them() {
    let dir = format!("{}/tests/dtb", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".dtb"))
        .collect();
    names.sort();
    assert!(names.len() >= 17, "{names:?}");
    let mut compared = 0;
    for name in &names {
        let dtb = fixture(name);
        let ours = Fdt::new(&dtb);
        let blob = total_size(&dtb).and_then(|n| dtb.get(..n)).unwrap_or(&dtb);
        let theirs = dtoolkit::fdt::Fdt::new(blob);
        let (ours, theirs) = match (ours, theirs) {
            (Err(_), Err(_)) => {
                assert!(
                    ["empty.dtb", "garbage.dtb", "truncated.dtb"].contains(&name.as_str()),
                    "{name}"
                );
                continue;
            }
            (Ok(ours), Ok(theirs)) => (ours, theirs),
            // Names over 31 characters: dtoolkit's readers still read it.
            (Ok(ours), Err(e)) if name == "long-names.dtb" => {
                assert_eq!(e.kind, dtoolkit::error::FdtErrorKind::InvalidPropertyName);
                (ours, dtoolkit::fdt::Fdt::new_unchecked(blob))
            }
            (ours, theirs) => panic!("{name}: {:?} vs {:?}", ours.err(), theirs.err()),
        };
        let list = list_ours(ours);
        if let Some(diff) = first_difference(&list, &list_dtoolkit(theirs)) {
            panic!("{name}: {diff}");
        }
        // Every node is found again by its path.
        for item in &list {
            if let Item::Node(path) = item {
                let node = ours
                    .find_node(path)
                    .unwrap_or_else(|| panic!("{name}: {path}"));
                assert_eq!(
                    node.name(),
                    path.rsplit('/').next().unwrap(),
                    "{name}: {path}"
                );
            }
        }
        compared += 1;
    }
    assert_eq!(compared, names.len() - 3);
    // The NOPped fixtures read as their sources without the NOPped parts.
    let nop = list_ours(fdt(&fixture("qemu-virt-nop.dtb")));
    let plain = list_ours(fdt(&fixture("qemu-virt.dtb")));
    assert!(nop.len() < plain.len());
    let mut rest = plain.iter();
    assert!(
        nop.iter().all(|item| rest.any(|i| i == item)),
        "a subsequence"
    );
}
