//! `dtoolkit` as the oracle of `mairbench_core::fdt`: both readers list a tree
//! node by node, property by property, and the lists must be equal.

use dtoolkit::{Node as _, Property as _};
use mairbench_core::fdt::Fdt;

/// One line of a tree listing, in depth-first order: a node by its path, or a
/// property of the node listed last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Node(String),
    Property(String, Vec<u8>),
}

fn child_path(parent: &str, name: &str) -> String {
    if parent == "/" {
        format!("/{name}")
    } else {
        format!("{parent}/{name}")
    }
}

/// The tree as `mairbench_core::fdt` reads it.
pub fn list_ours(fdt: Fdt<'_>) -> Vec<Item> {
    let mut items = Vec::new();
    let mut stack = vec![("/".to_string(), fdt.root())];
    while let Some((path, node)) = stack.pop() {
        items.push(Item::Node(path.clone()));
        for p in node.properties() {
            items.push(Item::Property(p.name().to_string(), p.value().to_vec()));
        }
        let children: Vec<_> = node.children().collect();
        for child in children.into_iter().rev() {
            stack.push((child_path(&path, child.name()), child));
        }
    }
    items
}

/// The tree as `dtoolkit` reads it.
pub fn list_dtoolkit(fdt: dtoolkit::fdt::Fdt<'_>) -> Vec<Item> {
    let mut items = Vec::new();
    let mut stack = vec![("/".to_string(), fdt.root())];
    while let Some((path, node)) = stack.pop() {
        items.push(Item::Node(path.clone()));
        for p in node.properties() {
            items.push(Item::Property(p.name().to_string(), p.value().to_vec()));
        }
        let children: Vec<_> = node.children().collect();
        for child in children.into_iter().rev() {
            stack.push((child_path(&path, child.name()), child));
        }
    }
    items
}

/// The first difference between two listings, if any.
pub fn first_difference(ours: &[Item], theirs: &[Item]) -> Option<String> {
    let at = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .or((ours.len() != theirs.len()).then(|| ours.len().min(theirs.len())))?;
    Some(format!(
        "item {at} of {} (ours) and {} (dtoolkit): {:?} vs {:?}",
        ours.len(),
        theirs.len(),
        ours.get(at),
        theirs.get(at)
    ))
}

/// Walks both trees in step, depth first, and returns how many nodes and
/// properties they hold, or where they first differ: the same as comparing
/// [`list_ours`] with [`list_dtoolkit`], without building the lists.
pub fn compare(ours: Fdt<'_>, theirs: dtoolkit::fdt::Fdt<'_>) -> Result<usize, String> {
    let mut items = 0;
    let mut stack = vec![("/".to_string(), ours.root(), theirs.root())];
    while let Some((path, a, b)) = stack.pop() {
        items += 1;
        let mut theirs_props = b.properties();
        for p in a.properties() {
            match theirs_props.next() {
                Some(q) if q.name() == p.name() && q.value() == p.value() => items += 1,
                q => {
                    let q = q.map(|q| (q.name().to_string(), q.value().to_vec()));
                    return Err(format!(
                        "{path}: property {:?} vs {q:?}",
                        (p.name(), p.value())
                    ));
                }
            }
        }
        if let Some(q) = theirs_props.next() {
            return Err(format!("{path}: dtoolkit has property {:?} more", q.name()));
        }
        let ours_children: Vec<_> = a.children().collect();
        let theirs_children: Vec<_> = b.children().collect();
        let ours_names: Vec<_> = ours_children.iter().map(|c| c.name()).collect();
        let theirs_names: Vec<_> = theirs_children.iter().map(|c| c.name()).collect();
        if ours_names != theirs_names {
            return Err(format!(
                "{path}: children {ours_names:?} vs {theirs_names:?}"
            ));
        }
        for (a, b) in ours_children.into_iter().zip(theirs_children).rev() {
            stack.push((child_path(&path, a.name()), a, b));
        }
    }
    Ok(items)
}
