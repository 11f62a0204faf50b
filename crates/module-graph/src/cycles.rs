//! The sets of modules that depend on each other: the strongly connected components of two or
//! more modules (Tarjan's algorithm).

use std::collections::{BTreeMap, BTreeSet};

/// Every set of two or more modules of `graph` that reach each other, each sorted.
pub fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

struct Walk<'g> {
    graph: &'g BTreeMap<String, BTreeSet<String>>,
    index: BTreeMap<&'g str, usize>,
    low: BTreeMap<&'g str, usize>,
    stack: Vec<&'g str>,
    on_stack: BTreeSet<&'g str>,
    found: Vec<Vec<String>>,
}

impl<'g> Walk<'g> {
    fn visit(&mut self, node: &'g str) {
        let n = self.index.len();
        self.index.insert(node, n);
        self.low.insert(node, n);
        self.stack.push(node);
        self.on_stack.insert(node);
        for next in self.graph.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !self.index.contains_key(next) {
                self.visit(next);
                let low = self.low[node].min(self.low[next]);
                self.low.insert(node, low);
            } else if self.on_stack.contains(next) {
                let low = self.low[node].min(self.index[next]);
                self.low.insert(node, low);
            }
        }
        if self.low[node] == self.index[node] {
            let mut set = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack.remove(top);
                set.push(top.to_string());
                if top == node {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                self.found.push(set);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_is_one_cycle_and_a_chain_none() {
        let graph: BTreeMap<String, BTreeSet<String>> = [
            ("a", vec!["b"]),
            ("b", vec!["c"]),
            ("c", vec!["a"]),
            ("d", vec!["a"]),
        ]
        .into_iter()
        .map(|(from, to)| {
            let to = to.into_iter().map(String::from).collect();
            (from.to_string(), to)
        })
        .collect();
        assert_eq!(cycles(&graph), [vec!["a", "b", "c"]]);
    }
}
